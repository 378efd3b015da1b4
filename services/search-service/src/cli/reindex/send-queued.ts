import type { MeilisearchIndex } from '../../index/meilisearch/meilisearch-index';
import type { ProgressReport } from './progress';
import { sleep, waitToRetry, type RetryPolicy } from './retries';

/**
 * Runs the relay until the outbox is empty, in attempts of attemptTimeoutMs; an attempt after
 * which fewer rows are pending counts as progress (the attempts start again), one without
 * progress as a failed attempt. Progress: sent = total − pending (the service's own rows make
 * pending a little larger while it writes).
 */
export async function sendQueued(
  engine: MeilisearchIndex,
  total: number,
  o: {
    policy: RetryPolicy;
    attemptTimeoutMs: number;
    report: ProgressReport;
    pollMs: number;
  },
): Promise<{ ok: true } | { ok: false; pending: number }> {
  const sentSoFar = (pending: number) => total - Math.min(total, pending);
  let pending = (await engine.relay.pending()).count;
  o.report(sentSoFar(pending), total);
  let failed = 0;
  for (;;) {
    let polling = true;
    const poll = (async () => {
      while (polling) {
        await sleep(o.pollMs);
        if (polling) o.report(sentSoFar((await engine.relay.pending()).count), total);
      }
    })();
    let error: unknown = null;
    try {
      await engine.relay.drain({ timeoutMs: o.attemptTimeoutMs, ignoreBackoff: false });
    } catch (err) {
      error = err;
    } finally {
      polling = false;
      await poll.catch(() => {});
    }
    const before = pending;
    pending = (await engine.relay.pending()).count;
    o.report(sentSoFar(pending), total);
    if (error === null) return { ok: true };
    if (pending < before) {
      failed = 0;
      continue;
    }
    failed++;
    if (failed >= o.policy.attempts) return { ok: false, pending };
    await waitToRetry(o.policy, 'sending the queued changes', error, failed);
  }
}
