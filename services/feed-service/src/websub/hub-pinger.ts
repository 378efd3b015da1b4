import type { Logger, Metrics } from '@hub/service-kit';
import type { HubNotifier } from './hub-notifier';
import { hubLabel } from './hub-label';
import { pingMetrics, type PingMetrics } from './ping-metrics';
import { backoffDelay, type PingPolicy } from './ping-policy';
import { sendPing } from './send-ping';

/** One hub and one feed URL being told, retried until delivered or given up. */
interface Delivery {
  hub: string;
  label: string;
  topic: string;
  /** a change was announced after the current attempt started: tell the hub once more */
  again: boolean;
  done?: Promise<void>;
}

interface Sleep {
  timer: NodeJS.Timeout;
  wake: () => void;
}

/**
 * WebSub publishing: after a write commits, each hub gets `POST hub.mode=publish&hub.url=…`
 * for each feed URL that changed, in the background (the write's response never waits).
 * A ping that fails (network error, timeout, 408, 429, 5xx) is retried with exponential
 * backoff up to `policy.attempts`; another answer (3xx, other 4xx) is given up at once.
 * At most one delivery per (hub, feed) is under way: a change announced meanwhile is folded
 * into it (one more ping once it has been delivered), so a burst of writes never piles up
 * requests. Counted in `websub_pings_total{hub,result}` and
 * `websub_ping_attempt_failures_total{hub}`; every failed attempt is logged.
 *
 * close(): nothing new starts, backoff waits end, attempts under way get `policy.drainMs` to
 * finish and are then aborted; what is left is counted and logged as abandoned.
 */
export class HubPinger implements HubNotifier {
  private readonly deliveries = new Map<string, Delivery>();
  private readonly sleeps = new Set<Sleep>();
  private readonly abort = new AbortController();
  private closing = false;
  private readonly metrics: PingMetrics;

  constructor(
    readonly hubs: readonly string[],
    private readonly policy: PingPolicy,
    private readonly logger: Logger,
    metrics: Metrics,
  ) {
    this.metrics = pingMetrics(metrics);
  }

  announce(topics: readonly string[]): void {
    if (this.hubs.length === 0) return;
    if (this.closing) {
      this.logger.warn({ topics }, 'websub: stopping, pings not sent');
      return;
    }
    for (const hub of this.hubs) {
      for (const topic of topics) {
        const key = `${hub}\n${topic}`;
        const under = this.deliveries.get(key);
        if (under) {
          under.again = true;
          continue;
        }
        const delivery: Delivery = { hub, label: hubLabel(hub), topic, again: false };
        this.deliveries.set(key, delivery);
        delivery.done = this.deliver(delivery)
          .catch((err: unknown) => this.logger.error({ err }, 'websub: ping failed'))
          .finally(() => this.deliveries.delete(key));
      }
    }
  }

  /** Resolves once no ping is under way (tests wait on it). */
  async settled(): Promise<void> {
    while (this.deliveries.size > 0)
      await Promise.all([...this.deliveries.values()].map((d) => d.done));
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const sleep of this.sleeps) {
      clearTimeout(sleep.timer);
      sleep.wake();
    }
    let drained: NodeJS.Timeout | undefined;
    await Promise.race([
      this.settled(),
      new Promise<void>((resolve) => (drained = setTimeout(resolve, this.policy.drainMs))),
    ]);
    clearTimeout(drained);
    this.abort.abort();
    await this.settled();
  }

  private async deliver(d: Delivery): Promise<void> {
    const log = { hub: d.label, topic: d.topic };
    for (let attempt = 1; ; attempt++) {
      if (this.closing) return this.abandoned(d);
      d.again = false;
      const outcome = await sendPing(d.hub, d.topic, this.policy.timeoutMs, this.abort.signal);
      if (outcome.ok) {
        this.metrics.pings.inc({ hub: d.label, result: 'delivered' });
        this.logger.debug({ ...log, attempt }, 'websub: ping delivered');
        if (!d.again) return;
        attempt = 0; // a change came while this ping was under way: the hub hears once more
        continue;
      }
      if (this.closing) return this.abandoned(d);
      this.metrics.attemptFailures.inc({ hub: d.label });
      if (!outcome.retryable || attempt >= this.policy.attempts) {
        this.metrics.pings.inc({ hub: d.label, result: 'failed' });
        this.logger.error({ ...log, attempt, failure: outcome.failure }, 'websub: ping failed');
        return;
      }
      const retryInMs = backoffDelay(this.policy, attempt);
      this.logger.warn(
        { ...log, attempt, failure: outcome.failure, retryInMs },
        'websub: ping attempt failed, retrying',
      );
      await this.sleep(retryInMs);
    }
  }

  private abandoned(d: Delivery): void {
    this.metrics.pings.inc({ hub: d.label, result: 'abandoned' });
    this.logger.warn({ hub: d.label, topic: d.topic }, 'websub: stopping, ping abandoned');
  }

  /** A backoff wait that close() ends early. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const sleep: Sleep = {
        timer: setTimeout(() => sleep.wake(), ms),
        wake: () => {
          this.sleeps.delete(sleep);
          resolve();
        },
      };
      sleep.timer.unref();
      this.sleeps.add(sleep);
    });
  }
}
