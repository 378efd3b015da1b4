import type pg from 'pg';
import type { Logger, Metrics } from '@hub/service-kit';
import type { MeiliDocument } from '../index/meilisearch/mapping';
import { IndexWriteError, type IndexSink } from '../index/meilisearch/gateway';
import {
  backoffMs,
  planBatch,
  type AppliedVersion,
  type OutboxRow,
  type PlannedChange,
} from './coalesce';
import { createWakeup, listenChannel, type ChannelListener } from './notify';
import { OUTBOX_CHANNEL } from './outbox';

/**
 * The outbox relay: moves committed changes from search_outbox to Meilisearch.
 *
 * One batch = one Postgres transaction:
 *  1. lock up to batchSize due rows, oldest first, `FOR UPDATE SKIP LOCKED` (other relays take
 *     other rows);
 *  2. take a transaction-scoped advisory try-lock per Meilisearch id (rows whose id another
 *     relay holds are left for later: two relays never send the same document concurrently);
 *  3. add every other pending row of those ids, read their applied versions, coalesce
 *     (planBatch: newest change per document; nothing older than what Meilisearch holds);
 *  4. addDocuments / deleteDocuments and wait for the tasks;
 *  5. on success record the applied versions and mark the rows done; on failure count the
 *     attempt and set next_attempt_at with exponential backoff; COMMIT.
 * A relay that dies mid-batch rolls back: its rows stay pending and are sent again (writes are
 * idempotent: add-or-replace by id, delete by id).
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
}

export interface BatchResult {
  /** rows locked by the batch query */
  selected: number;
  /** rows marked done (sent, or stale) */
  done: number;
  /** rows whose sending failed (retried later) */
  failed: number;
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

const ADVISORY_CLASS = 0x5e01; // pg_advisory_xact_lock(int, int): (class, hashtext(meili_id))

const ROW_COLUMNS = `id::text, op, collection_id, meili_id, doc_id::text, version::text, payload, force, isolate, attempts`;

// rows of a collection wait behind an earlier pending drop of that collection
const NO_EARLIER_DROP = `NOT EXISTS (
  SELECT 1 FROM search_outbox d
  WHERE d.done_at IS NULL AND d.op = 'drop' AND d.collection_id = o.collection_id AND d.id < o.id)`;

interface DbRow {
  id: string;
  op: OutboxRow['op'];
  collection_id: string;
  meili_id: string;
  doc_id: string;
  version: string;
  payload: MeiliDocument | null;
  force: boolean;
  isolate: boolean;
  attempts: number;
}

function toRow(r: DbRow): OutboxRow {
  return {
    id: r.id,
    op: r.op,
    collectionId: r.collection_id,
    meiliId: r.meili_id,
    docId: r.doc_id,
    version: r.version,
    payload: r.payload,
    force: r.force,
    isolate: r.isolate,
    attempts: r.attempts,
  };
}

function errorText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 2000);
}

function relayMetrics(metrics: Metrics | undefined, pool: pg.Pool) {
  if (!metrics) return null;
  const { client, registry } = metrics;
  const existing = (name: string) => registry.getSingleMetric(name);
  const pendingGauge =
    existing('search_outbox_pending') ??
    new client.Gauge({
      name: 'search_outbox_pending',
      help: 'Search outbox rows not yet applied to the index',
      registers: [registry],
      async collect() {
        const r = await pool.query<{ n: string }>(
          `SELECT count(*)::text AS n FROM search_outbox WHERE done_at IS NULL`,
        );
        this.set(Number(r.rows[0]!.n));
      },
    });
  const lagGauge =
    existing('search_outbox_lag_seconds') ??
    new client.Gauge({
      name: 'search_outbox_lag_seconds',
      help: 'Age of the oldest search outbox row not yet applied (0 when none)',
      registers: [registry],
      async collect() {
        const r = await pool.query<{ age: number | null }>(
          `SELECT extract(epoch FROM clock_timestamp() - min(created_at))::float8 AS age
             FROM (SELECT created_at FROM search_outbox WHERE done_at IS NULL ORDER BY id LIMIT 1) o`,
        );
        this.set(r.rows[0]?.age ?? 0);
      },
    });
  const applied = (existing('search_outbox_applied_total') ??
    new client.Counter({
      name: 'search_outbox_applied_total',
      help: 'Search outbox rows settled (sent to the index, or superseded)',
      registers: [registry],
    })) as InstanceType<typeof client.Counter>;
  const failures = (existing('search_outbox_failures_total') ??
    new client.Counter({
      name: 'search_outbox_failures_total',
      help: 'Failed index writes of the search outbox relay, by kind',
      labelNames: ['kind'],
      registers: [registry],
    })) as InstanceType<typeof client.Counter<'kind'>>;
  const visibility = (existing('search_outbox_visibility_seconds') ??
    new client.Histogram({
      name: 'search_outbox_visibility_seconds',
      help: 'From the write transaction to the index confirming the change',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers: [registry],
    })) as InstanceType<typeof client.Histogram>;
  void pendingGauge;
  void lagGauge;
  return { applied, failures, visibility };
}

export function createOutboxRelay(opts: RelayOptions): OutboxRelay {
  const { pool, sink, logger } = opts;
  const batchSize = opts.batchSize ?? 500;
  const pollIntervalMs = opts.pollIntervalMs ?? 1000;
  const baseBackoff = opts.baseBackoffMs ?? 500;
  const maxBackoff = opts.maxBackoffMs ?? 60_000;
  const retainDoneMs = opts.retainDoneMs ?? 24 * 3600 * 1000;
  const metrics = relayMetrics(opts.metrics, pool);
  const wakeup = createWakeup();
  let running = false;
  let loop: Promise<void> | null = null;
  let listener: ChannelListener | null = null;
  let lastCleanup = 0;

  async function markDone(client: pg.PoolClient, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const r = await client.query<{ seconds: number }>(
      `UPDATE search_outbox SET done_at = clock_timestamp(), last_error = NULL
        WHERE id = ANY($1::bigint[])
        RETURNING extract(epoch FROM clock_timestamp() - created_at)::float8 AS seconds`,
      [ids],
    );
    if (metrics) {
      metrics.applied.inc(r.rowCount ?? 0);
      for (const row of r.rows) metrics.visibility.observe(row.seconds);
    }
  }

  async function markFailed(
    client: pg.PoolClient,
    rows: OutboxRow[],
    err: unknown,
    isolate: boolean,
  ): Promise<void> {
    const kind = err instanceof IndexWriteError ? err.kind : 'transient';
    metrics?.failures.inc({ kind });
    const ids: string[] = [];
    const delays: number[] = [];
    for (const row of rows) {
      ids.push(row.id);
      delays.push(backoffMs(row.attempts + 1, baseBackoff, maxBackoff));
    }
    await client.query(
      `UPDATE search_outbox o
          SET attempts = o.attempts + 1,
              next_attempt_at = clock_timestamp() + make_interval(secs => f.delay / 1000.0),
              last_error = $3,
              isolate = o.isolate OR $4
         FROM unnest($1::bigint[], $2::int[]) AS f(id, delay)
        WHERE o.id = f.id`,
      [ids, delays, errorText(err), isolate],
    );
    const level = rows.some((r) => r.attempts >= 3) ? 'error' : 'warn';
    logger[level](
      {
        err: errorText(err),
        kind,
        rows: rows.length,
        attempts: Math.max(...rows.map((r) => r.attempts + 1)),
      },
      'search index write failed; will retry',
    );
  }

  async function recordApplied(client: pg.PoolClient, changes: PlannedChange[]): Promise<void> {
    if (changes.length === 0) return;
    await client.query(
      `INSERT INTO search_applied_versions AS a (meili_id, collection_id, doc_id, version, deleted, applied_at)
       SELECT m, c, d, v, del, clock_timestamp()
         FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bool[]) AS u(m, c, d, v, del)
       ON CONFLICT (meili_id) DO UPDATE
          SET collection_id = excluded.collection_id, doc_id = excluded.doc_id, version = excluded.version,
              deleted = excluded.deleted, applied_at = excluded.applied_at
        WHERE (a.doc_id, a.version, a.deleted) <= (excluded.doc_id, excluded.version, excluded.deleted)`,
      [
        changes.map((c) => c.meiliId),
        changes.map((c) => c.winner.collectionId),
        changes.map((c) => c.winner.docId),
        changes.map((c) => c.winner.version),
        changes.map((c) => c.winner.op === 'delete'),
      ],
    );
  }

  /**
   * Sends the planned changes: the ordinary ones in one addDocuments and one deleteDocuments
   * task, each change that Meilisearch rejected before in a task of its own (so one bad
   * document fails alone), all enqueued at once; then settles each task's rows.
   */
  async function sendPlan(
    client: pg.PoolClient,
    upserts: PlannedChange[],
    deletes: PlannedChange[],
  ) {
    const isolated = (c: PlannedChange) => c.rows.some((r) => r.isolate);
    const groups: Array<{ changes: PlannedChange[]; send: () => Promise<void> }> = [];
    const addGroup = (changes: PlannedChange[], op: 'upsert' | 'delete') => {
      if (changes.length === 0) return;
      groups.push({
        changes,
        send:
          op === 'upsert'
            ? () => sink.upsert(changes.map((c) => c.winner.payload!))
            : () => sink.remove(changes.map((c) => c.meiliId)),
      });
    };
    for (const [list, op] of [
      [upserts, 'upsert'],
      [deletes, 'delete'],
    ] as const) {
      addGroup(
        list.filter((c) => !isolated(c)),
        op,
      );
      for (const c of list.filter(isolated).slice(0, MAX_ISOLATED_PER_BATCH)) addGroup([c], op);
    }
    const outcomes = await Promise.allSettled(groups.map((g) => g.send()));
    let done = 0;
    let failed = 0;
    for (const [i, group] of groups.entries()) {
      const outcome = outcomes[i]!;
      const rows = group.changes.flatMap((c) => c.rows);
      if (outcome.status === 'fulfilled') {
        await recordApplied(client, group.changes);
        await markDone(
          client,
          rows.map((r) => r.id),
        );
        done += rows.length;
      } else {
        const err: unknown = outcome.reason;
        const rejected = err instanceof IndexWriteError && err.kind === 'rejected';
        await markFailed(client, rows, err, rejected && group.changes.length > 1);
        failed += rows.length;
      }
    }
    return { done, failed };
  }

  async function processDrop(client: pg.PoolClient, row: OutboxRow): Promise<BatchResult> {
    try {
      await sink.purgeCollection(row.collectionId);
    } catch (err) {
      await markFailed(client, [row], err, false);
      return { selected: 1, done: 0, failed: 1, skipped: 0 };
    }
    await client.query(`DELETE FROM search_applied_versions WHERE collection_id = $1`, [
      row.collectionId,
    ]);
    await markDone(client, [row.id]);
    return { selected: 1, done: 1, failed: 0, skipped: 0 };
  }

  async function processBatch(client: pg.PoolClient, ignoreBackoff: boolean): Promise<BatchResult> {
    const due = ignoreBackoff ? 'true' : 'o.next_attempt_at <= clock_timestamp()';
    const selected = (
      await client.query<DbRow>(
        `SELECT ${ROW_COLUMNS} FROM search_outbox o
          WHERE o.done_at IS NULL AND ${due} AND ${NO_EARLIER_DROP}
          ORDER BY o.id LIMIT $1
          FOR UPDATE OF o SKIP LOCKED`,
        [batchSize],
      )
    ).rows.map(toRow);
    if (selected.length === 0) return { selected: 0, done: 0, failed: 0, skipped: 0 };
    if (selected[0]!.op === 'drop') return processDrop(client, selected[0]!);

    // the batch stops before a drop
    const batch: OutboxRow[] = [];
    for (const row of selected) {
      if (row.op === 'drop') break;
      batch.push(row);
    }

    const ids = [...new Set(batch.map((r) => r.meiliId))];
    const locked = (
      await client.query<{ m: string }>(
        `SELECT m FROM unnest($1::text[]) AS m WHERE pg_try_advisory_xact_lock($2::int, hashtext(m))`,
        [ids, ADVISORY_CLASS],
      )
    ).rows.map((r) => r.m);
    if (locked.length === 0)
      return { selected: selected.length, done: 0, failed: 0, skipped: batch.length };

    // every pending row of the locked documents (also ones waiting for a retry): the newest
    // wins. A document is only sent when all its pending rows are ours: a row that another
    // relay still holds (it took the row but not the document) might be the newest, so such
    // a document waits for the next batch. Reading without locks first, then locking with
    // SKIP LOCKED, never waits for another relay (no deadlock) and misses nothing.
    const all = await client.query<{ id: string; meili_id: string }>(
      `SELECT o.id::text, o.meili_id FROM search_outbox o
        WHERE o.done_at IS NULL AND o.meili_id = ANY($1::text[]) AND o.op <> 'drop' AND ${NO_EARLIER_DROP}`,
      [locked],
    );
    const mine = (
      await client.query<DbRow>(
        `SELECT ${ROW_COLUMNS} FROM search_outbox o
          WHERE o.done_at IS NULL AND o.meili_id = ANY($1::text[]) AND o.op <> 'drop' AND ${NO_EARLIER_DROP}
          ORDER BY o.id
          FOR UPDATE OF o SKIP LOCKED`,
        [locked],
      )
    ).rows.map(toRow);
    const mineIds = new Set(mine.map((r) => r.id));
    const blocked = new Set(all.rows.filter((r) => !mineIds.has(r.id)).map((r) => r.meili_id));
    const rows = mine.filter((r) => !blocked.has(r.meiliId));
    const lockedSet = new Set(locked);
    const skipped = batch.filter((r) => !lockedSet.has(r.meiliId) || blocked.has(r.meiliId)).length;
    if (rows.length === 0) return { selected: selected.length, done: 0, failed: 0, skipped };

    const applied = new Map<string, AppliedVersion>();
    const appliedRows = await client.query<{
      meili_id: string;
      doc_id: string;
      version: string;
      deleted: boolean;
    }>(
      `SELECT meili_id, doc_id::text, version::text, deleted
         FROM search_applied_versions WHERE meili_id = ANY($1::text[])`,
      [locked],
    );
    for (const r of appliedRows.rows) {
      applied.set(r.meili_id, { docId: r.doc_id, version: r.version, deleted: r.deleted });
    }

    const plan = planBatch(rows, applied);
    await markDone(
      client,
      plan.stale.map((r) => r.id),
    );
    const sent = await sendPlan(client, plan.upserts, plan.deletes);
    return {
      selected: selected.length,
      done: plan.stale.length + sent.done,
      failed: sent.failed,
      skipped,
    };
  }

  async function runOnce(o: { ignoreBackoff?: boolean } = {}): Promise<BatchResult> {
    const client = await pool.connect();
    let broken: Error | undefined;
    // the connection can die while the batch waits for Meilisearch (no query running): keep
    // that error from becoming an uncaught 'error' event; the next query then fails
    const onError = (err: Error) => {
      broken = err;
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await processBatch(client, o.ignoreBackoff ?? false);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      broken = err instanceof Error ? err : new Error(String(err));
      try {
        await client.query('ROLLBACK');
        broken = undefined;
      } catch {
        // connection gone: release it destroyed
      }
      throw err;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
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
