import type pg from 'pg';
import type { Logger, Metrics } from '@hub/service-kit';
import type { IndexSink } from '../index/meilisearch/gateway';
import { claimBatch, type Claim } from './claim';
import type { PlannedChange } from './coalesce';
import { createWakeup, listenChannel, type ChannelListener } from './notify';
import { OUTBOX_CHANNEL } from './outbox';
import { errorText, recordDrop, recordOutcomes, type Recorded, type SentGroup } from './record';
import { relayMetrics } from './relay-metrics';
import { asIs } from './transaction';
import { inTransaction } from '../store/db';

/**
 * The outbox relay: moves committed changes from search_outbox to Meilisearch. A batch never
 * keeps a Postgres transaction open while it waits for Meilisearch:
 *  1. claim (src/outbox/claim.ts, one short transaction): lock due rows `FOR UPDATE SKIP
 *     LOCKED`, take the documents no other batch holds, coalesce (planBatch: newest change per
 *     document; nothing older than what Meilisearch holds), settle the stale rows, and mark the
 *     others claimed by this batch for a lease; COMMIT;
 *  2. call: addDocuments / deleteDocuments (or the purge of a dropped collection) and wait for
 *     the tasks, no transaction open;
 *  3. record (src/outbox/record.ts, one short transaction): applied versions and done rows, or
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

/** changes sent one per task in a batch (after Meilisearch rejected a batch they were in) */
const MAX_ISOLATED_PER_BATCH = 20;

export function createOutboxRelay(opts: RelayOptions): OutboxRelay {
  const { pool, sink, logger } = opts;
  const batchSize = opts.batchSize ?? 500;
  const pollIntervalMs = opts.pollIntervalMs ?? 1000;
  const baseBackoff = opts.baseBackoffMs ?? 500;
  const maxBackoff = opts.maxBackoffMs ?? 60_000;
  const retainDoneMs = opts.retainDoneMs ?? 24 * 3600 * 1000;
  const claimLeaseMs = opts.claimLeaseMs ?? 60_000;
  const recordOpts = {
    baseBackoffMs: baseBackoff,
    maxBackoffMs: maxBackoff,
    maxRejections: opts.maxRejections ?? 5,
  };
  const metrics = relayMetrics(opts.metrics, pool);
  const wakeup = createWakeup();
  let running = false;
  let loop: Promise<void> | null = null;
  let listener: ChannelListener | null = null;
  let lastCleanup = 0;

  /**
   * The sends of a claim: the ordinary changes in one addDocuments and one deleteDocuments
   * task, each change that Meilisearch rejected before in a task of its own (so one bad
   * document fails alone), all enqueued at once.
   */
  function sendGroups(upserts: PlannedChange[], deletes: PlannedChange[]) {
    const isolated = (c: PlannedChange) => c.rows.some((r) => r.isolate);
    const groups: Array<{ changes: PlannedChange[]; send: () => Promise<void> }> = [];
    for (const [list, op] of [
      [upserts, 'upsert'],
      [deletes, 'delete'],
    ] as const) {
      const send = (changes: PlannedChange[]) =>
        op === 'upsert'
          ? () => sink.upsert(changes.map((c) => c.winner.payload!))
          : () => sink.remove(changes.map((c) => c.meiliId));
      const together = list.filter((c) => !isolated(c));
      if (together.length > 0) groups.push({ changes: together, send: send(together) });
      for (const c of list.filter(isolated).slice(0, MAX_ISOLATED_PER_BATCH))
        groups.push({ changes: [c], send: send([c]) });
    }
    return groups;
  }

  async function callIndex(claim: Extract<Claim, { kind: 'changes' }>): Promise<SentGroup[]> {
    const groups = sendGroups(claim.upserts, claim.deletes);
    const outcomes = await Promise.allSettled(groups.map((g) => g.send()));
    return groups.map((g, i) => {
      const outcome = outcomes[i]!;
      return outcome.status === 'fulfilled'
        ? { changes: g.changes }
        : { changes: g.changes, error: outcome.reason as unknown };
    });
  }

  function report(recorded: Recorded): void {
    if (metrics) {
      metrics.applied.inc(recorded.done);
      for (const s of recorded.visibility) metrics.visibility.observe(s);
      metrics.deadLettered.inc(recorded.deadLettered);
    }
    for (const f of recorded.failures) {
      metrics?.failures.inc({ kind: f.kind });
      const attempts = Math.max(...f.rows.map((r) => r.attempts + 1));
      logger[attempts > 3 ? 'error' : 'warn'](
        { err: f.error, kind: f.kind, rows: f.rows.length, attempts },
        'search index write failed; will retry',
      );
    }
    if (recorded.deadLettered > 0)
      logger.error(
        { changes: recorded.deadLettered },
        'search index rejected changes too often; moved to the dead letters',
      );
  }

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
    report(recorded);
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
    const sent = await callIndex(claim);
    const recorded = await inTransaction(pool, asIs, (tx) =>
      recordOutcomes(tx, claim.token, sent, recordOpts),
    );
    report(recorded);
    return {
      selected: claim.selected,
      done: claim.stale + recorded.done,
      failed: recorded.failed,
      skipped: claim.skipped,
      deadLettered: recorded.deadLettered,
    };
  }

  async function cleanup(): Promise<void> {
    if (Date.now() - lastCleanup < 60_000) return;
    lastCleanup = Date.now();
    try {
      await pool.query(
        `DELETE FROM search_outbox WHERE id IN (
           SELECT id FROM search_outbox WHERE done_at < clock_timestamp() - make_interval(secs => $1::float8 / 1000)
           LIMIT 10000)`,
        [retainDoneMs],
      );
      // tombstones of deleted documents, once nothing older can still arrive
      await pool.query(
        `DELETE FROM search_applied_versions a
          WHERE a.deleted AND a.applied_at < clock_timestamp() - make_interval(secs => $1::float8 / 1000)
            AND NOT EXISTS (SELECT 1 FROM search_outbox o WHERE o.done_at IS NULL AND o.meili_id = a.meili_id)`,
        [retainDoneMs * 7],
      );
    } catch (err) {
      logger.warn({ err: errorText(err) }, 'search outbox cleanup failed');
    }
  }

  async function run(): Promise<void> {
    while (running) {
      let more = false;
      try {
        const r = await runOnce();
        // a full batch that made progress: there is probably more right now
        more = r.selected >= batchSize && r.done + r.failed > 0;
      } catch (err) {
        logger.error({ err: errorText(err) }, 'search outbox relay batch failed');
      }
      await cleanup();
      if (running && !more) await wakeup.wait(pollIntervalMs);
    }
  }

  async function pending(collectionId?: string) {
    const r = await pool.query<{ n: string; age: number | null }>(
      `SELECT count(*)::text AS n, extract(epoch FROM clock_timestamp() - min(created_at))::float8 AS age
         FROM search_outbox WHERE done_at IS NULL AND ($1::text IS NULL OR collection_id = $1)`,
      [collectionId ?? null],
    );
    const row = r.rows[0]!;
    return { count: Number(row.n), oldestAgeSeconds: row.age };
  }

  return {
    start() {
      if (running) return;
      running = true;
      if (opts.listen ?? true)
        listener = listenChannel(pool, OUTBOX_CHANNEL, () => wakeup.wake(), logger);
      loop = run();
    },
    async stop() {
      running = false;
      wakeup.wake();
      await loop;
      loop = null;
      await listener?.stop();
      listener = null;
    },
    runOnce,
    async drain(o = {}) {
      const deadline = Date.now() + (o.timeoutMs ?? 30_000);
      for (;;) {
        const r = await runOnce({ ignoreBackoff: o.ignoreBackoff ?? true });
        if (r.selected === 0 && (await pending()).count === 0) return;
        if (Date.now() > deadline) throw new Error('search outbox not drained in time');
        if (r.done === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    pending,
    wake() {
      wakeup.wake();
    },
  };
}
