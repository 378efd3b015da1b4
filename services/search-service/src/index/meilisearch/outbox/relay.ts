import type pg from 'pg';
import {
  asIs,
  createWorkerLoop,
  drainWork,
  inTransaction,
  pooledConnection,
  type Logger,
  type Metrics,
} from '@hub/service-kit';
import type { IndexSink } from '../gateway';
import { claimBatch, type Claim } from './claim';
import { OUTBOX_CHANNEL } from './enqueue';
import { deleteSettledRows, pendingChanges } from './outbox-store';
import { recordDrop, recordOutcomes } from './record-outcomes';
import { relayMetrics, reportRecorded } from './relay-metrics';
import { sendChanges } from './send-changes';

/**
 * The outbox relay: moves committed changes from search_outbox to Meilisearch. A batch never
 * keeps a Postgres transaction open while it waits for Meilisearch:
 *  1. claim (claim.ts, one short transaction): lock due rows `FOR UPDATE SKIP
 *     LOCKED`, take the documents no other batch holds, coalesce (planBatch: newest change per
 *     document; nothing older than what Meilisearch holds), settle the stale rows, and mark the
 *     others claimed by this batch for a lease; COMMIT;
 *  2. call (send-changes.ts): addDocuments / deleteDocuments (or the purge of a dropped collection) and wait for
 *     the tasks, no transaction open;
 *  3. record (record-outcomes.ts, one short transaction): applied versions and done rows, or
 *     the failed attempt with backoff, and after maxRejections rejections of a change sent on
 *     its own its move to search_outbox_dead_letters; release the claim; COMMIT.
 * A relay that dies between 1 and 3 leaves its rows claimed until the lease runs out; they
 * are sent again then (writes are idempotent: add-or-replace by id, delete by id).
 */

export interface RelayOptions {
  pool: pg.Pool;
  sink: IndexSink;
  logger: Logger;
  metrics?: Metrics;
  /** rows per batch (default 500) */
  batchSize?: number;
  /** poll fallback when no NOTIFY arrives (default 1000 ms) */
  pollIntervalMs?: number;
  /** first retry delay (default 500 ms), doubled per attempt up to maxBackoffMs (default 60 s) */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** LISTEN for NOTIFY (default true) */
  listen?: boolean;
  /** done rows are deleted after this long (default 24 h) */
  retainDoneMs?: number;
  /**
   * a change that Meilisearch rejects this many times when sent on its own goes to the dead
   * letters (default 5: about 15 s of retries with the default backoff)
   */
  maxRejections?: number;
  /**
   * how long a batch holds its claimed rows (default 60 s); must exceed the longest call to
   * Meilisearch (request timeout + task timeout), or another relay may send them meanwhile
   */
  claimLeaseMs?: number;
}

export interface BatchResult {
  /** rows locked by the batch query */
  selected: number;
  /** rows marked done (sent, or stale) */
  done: number;
  /** rows whose sending failed (retried later, or dead-lettered) */
  failed: number;
  /** changes moved to the dead letters by this batch */
  deadLettered?: number;
  /** rows left alone because another relay holds their document */
  skipped: number;
}

export interface OutboxRelay {
  start(): void;
  stop(): Promise<void>;
  /** one batch; ignoreBackoff also takes rows whose retry time has not come */
  runOnce(opts?: { ignoreBackoff?: boolean }): Promise<BatchResult>;
  /** batches until no row is pending (throws after timeoutMs, default 30 s) */
  drain(opts?: { timeoutMs?: number; ignoreBackoff?: boolean }): Promise<void>;
  /** pending rows and the age of the oldest, for one collection or all */
  pending(collectionId?: string): Promise<{ count: number; oldestAgeSeconds: number | null }>;
  wake(): void;
}

export function createOutboxRelay(opts: RelayOptions): OutboxRelay {
  const { pool, sink, logger } = opts;
  const batchSize = opts.batchSize ?? 500;
  const retainDoneMs = opts.retainDoneMs ?? 24 * 3600 * 1000;
  const claimLeaseMs = opts.claimLeaseMs ?? 60_000;
  const recordOpts = {
    baseBackoffMs: opts.baseBackoffMs ?? 500,
    maxBackoffMs: opts.maxBackoffMs ?? 60_000,
    maxRejections: opts.maxRejections ?? 5,
  };
  const metrics = relayMetrics(opts.metrics, pool);

  async function processDrop(claim: Extract<Claim, { kind: 'drop' }>): Promise<BatchResult> {
    let error: unknown;
    try {
      await sink.purgeCollection(claim.row.collectionId);
    } catch (err) {
      error = err;
    }
    const recorded = await inTransaction(pool, asIs, (tx) =>
      recordDrop(tx, claim.token, claim.row, error, recordOpts),
    );
    reportRecorded(recorded, metrics, logger);
    return { selected: 1, done: recorded.done, failed: recorded.failed, skipped: 0 };
  }

  /** One batch: claim (and commit), call Meilisearch with no transaction open, record. */
  async function runOnce(o: { ignoreBackoff?: boolean } = {}): Promise<BatchResult> {
    const claim = await claimBatch(pool, {
      batchSize,
      leaseMs: claimLeaseMs,
      ignoreBackoff: o.ignoreBackoff ?? false,
    });
    metrics?.applied.inc(claim.kind === 'drop' ? 0 : claim.stale);
    if (claim.kind === 'none')
      return { selected: claim.selected, done: claim.stale, failed: 0, skipped: claim.skipped };
    if (claim.kind === 'drop') return processDrop(claim);
    const sent = await sendChanges(sink, claim.upserts, claim.deletes);
    const recorded = await inTransaction(pool, asIs, (tx) =>
      recordOutcomes(tx, claim.token, sent, recordOpts),
    );
    reportRecorded(recorded, metrics, logger);
    return {
      selected: claim.selected,
      done: claim.stale + recorded.done,
      failed: recorded.failed,
      skipped: claim.skipped,
      deadLettered: recorded.deadLettered,
    };
  }

  const worker = createWorkerLoop({
    async step() {
      const r = await runOnce();
      // a full batch that made progress: there is probably more right now
      return r.selected >= batchSize && r.done + r.failed > 0;
    },
    pollIntervalMs: opts.pollIntervalMs ?? 1000,
    listen:
      (opts.listen ?? true) ? { channel: OUTBOX_CHANNEL, open: pooledConnection(pool) } : undefined,
    logger,
    failureMessage: 'search outbox relay batch failed',
    housekeeping: {
      everyMs: 60_000,
      run: () => deleteSettledRows(pool, retainDoneMs),
      failureMessage: 'search outbox cleanup failed',
    },
  });

  return {
    start: () => worker.start(),
    stop: () => worker.stop(),
    runOnce,
    drain(o = {}) {
      return drainWork({
        step: async () => (await runOnce({ ignoreBackoff: o.ignoreBackoff ?? true })).done > 0,
        isEmpty: async () => (await pendingChanges(pool)).count === 0,
        timeoutMs: o.timeoutMs ?? 30_000,
        what: 'search outbox',
      });
    },
    pending: (collectionId) => pendingChanges(pool, collectionId),
    wake: () => worker.wake(),
  };
}
