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
  /** settles when its attempts have ended (a failure is logged, never thrown) */
  done: Promise<void>;
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
export interface HubPinger extends HubNotifier {
  /** the hubs told (FEED_WEBSUB_HUBS; empty: nothing is sent) */
  readonly hubs: readonly string[];
  /** Resolves once no ping is under way (tests wait on it). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export function createHubPinger(
  hubs: readonly string[],
  policy: PingPolicy,
  logger: Logger,
  metricsRegistry: Metrics,
): HubPinger {
  const deliveries = new Map<string, Delivery>();
  const sleeps = new Set<Sleep>();
  const abort = new AbortController();
  let closing = false;
  const metrics: PingMetrics = pingMetrics(metricsRegistry);

  function announce(topics: readonly string[]): void {
    if (hubs.length === 0) return;
    if (closing) {
      logger.warn({ topics }, 'websub: stopping, pings not sent');
      return;
    }
    for (const hub of hubs) {
      for (const topic of topics) {
        const key = `${hub}\n${topic}`;
        const under = deliveries.get(key);
        if (under) {
          under.again = true;
          continue;
        }
        const delivery: Delivery = {
          hub,
          label: hubLabel(hub),
          topic,
          again: false,
          done: Promise.resolve(),
        };
        deliveries.set(key, delivery);
        delivery.done = deliver(delivery)
          .catch((err: unknown) => logger.error({ err }, 'websub: ping failed'))
          .finally(() => deliveries.delete(key));
      }
    }
  }

  async function settled(): Promise<void> {
    while (deliveries.size > 0) await Promise.all([...deliveries.values()].map((d) => d.done));
  }

  async function close(): Promise<void> {
    closing = true;
    for (const sleep of sleeps) {
      clearTimeout(sleep.timer);
      sleep.wake();
    }
    let drained: NodeJS.Timeout | undefined;
    await Promise.race([
      settled(),
      new Promise<void>((resolve) => (drained = setTimeout(resolve, policy.drainMs))),
    ]);
    clearTimeout(drained);
    abort.abort();
    await settled();
  }

  async function deliver(d: Delivery): Promise<void> {
    const log = { hub: d.label, topic: d.topic };
    for (let attempt = 1; ; attempt++) {
      if (closing) return abandoned(d);
      d.again = false;
      const outcome = await sendPing(d.hub, d.topic, policy.timeoutMs, abort.signal);
      if (outcome.ok) {
        metrics.pings.inc({ hub: d.label, result: 'delivered' });
        logger.debug({ ...log, attempt }, 'websub: ping delivered');
        if (!d.again) return;
        attempt = 0; // a change came while this ping was under way: the hub hears once more
        continue;
      }
      if (closing) return abandoned(d);
      metrics.attemptFailures.inc({ hub: d.label });
      if (!outcome.retryable || attempt >= policy.attempts) {
        metrics.pings.inc({ hub: d.label, result: 'failed' });
        logger.error({ ...log, attempt, failure: outcome.failure }, 'websub: ping failed');
        return;
      }
      const retryInMs = backoffDelay(policy, attempt);
      logger.warn(
        { ...log, attempt, failure: outcome.failure, retryInMs },
        'websub: ping attempt failed, retrying',
      );
      await wait(retryInMs);
    }
  }

  function abandoned(d: Delivery): void {
    metrics.pings.inc({ hub: d.label, result: 'abandoned' });
    logger.warn({ hub: d.label, topic: d.topic }, 'websub: stopping, ping abandoned');
  }

  /** A backoff wait that close() ends early. */
  function wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const sleep: Sleep = {
        timer: setTimeout(() => sleep.wake(), ms),
        wake: () => {
          sleeps.delete(sleep);
          resolve();
        },
      };
      sleep.timer.unref();
      sleeps.add(sleep);
    });
  }

  return { hubs, announce, settled, close };
}
