import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type pg from 'pg';
import type { Logger, Metrics } from '@hub/service-kit';
import { inTransaction } from '@hub/service-kit';
import {
  applyTombstones,
  claimPending,
  collectionsWithRetired,
  collectionsWithWork,
  concatenatedDocs,
  deletedChunks,
  deletedTest,
  deleteRetired,
  finishFold,
  insertPostings,
  insertSegment,
  liveSegments,
  nextDocno,
  readAllPostings,
  retireSegments,
  tryLock,
} from './fold-store';
import { float64Bytes } from './index-store';
import { PACKED_MAX_DOCS, packPostings } from './packed-segment';
import { buildPostings, mergePostings, pickMerge, type PostingList } from './segment-builder';

export interface FolderOptions {
  pool: pg.Pool;
  logger: Logger;
  /** where fold lag, batch sizes and durations go (default: nowhere) */
  observer?: FolderObserver;
  /** documents per fold (one segment); default 2,000 */
  batchSize?: number;
  /** pause between rounds when there was nothing to do; default 100 ms */
  idleMs?: number;
  /** the background loop folds a collection at this many pending documents; default 1,000 */
  minBatch?: number;
  /** ... or when it has had pending work this long; default 1,000 ms */
  maxDelayMs?: number;
  /** merged segments of at most this many documents stay packed; default PACKED_MAX_DOCS */
  packedMaxDocs?: number;
}

/** What one round did (tests and the bench drive rounds directly). */
export interface RoundResult {
  folded: number;
  tombstones: number;
  merged: number;
}

/**
 * The indexer: moves committed pending documents into immutable segments (one per fold, one
 * posting list per touched term), applies tombstones to the deleted bitmaps, and merges
 * adjacent segments in the background, like an LSM tree. Every instance runs one; the
 * collection's advisory locks (fold and merge apart, so a long merge never holds up folds)
 * make sure that only one instance works on a collection at a time. Each step is one
 * transaction: a crash in the middle loses nothing and duplicates nothing.
 */
export class IndexFolder {
  private readonly batchSize: number;
  private readonly idleMs: number;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private lastCleanup = 0;
  private lastVacuum = 0;
  /** when this folder first saw pending work of a collection it has not folded yet */
  private waitingSince = new Map<string, number>();
  private readonly minBatch: number;
  private readonly maxDelayMs: number;
  private deletedSinceVacuum = 0;
  private readonly observer: FolderObserver | undefined;

  constructor(private readonly opts: FolderOptions) {
    this.batchSize = opts.batchSize ?? 2000;
    this.idleMs = opts.idleMs ?? 100;
    this.minBatch = Math.min(opts.minBatch ?? 1000, this.batchSize);
    this.maxDelayMs = opts.maxDelayMs ?? 1000;
    this.observer = opts.observer;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.round(false)
        .then((r) => this.schedule(r.folded || r.merged ? 0 : this.idleMs))
        .catch((err) => {
          this.opts.logger.error({ err }, 'search index folder round failed');
          this.schedule(this.idleMs * 10);
        });
    }, ms);
  }

  /**
   * One round: fold every collection with work once, then at most one merge per collection.
   * `eager` false (the background loop): a collection is folded once it has minBatch pending
   * documents or has had pending work for maxDelayMs, so that a busy collection is folded in
   * large, cheap batches (a fold's cost is mostly per distinct term) while its pending tail,
   * which searches scan, stays bounded. Tests call round() eagerly.
   */
  async round(eager = true): Promise<RoundResult> {
    const result: RoundResult = { folded: 0, tombstones: 0, merged: 0 };
    const work = await collectionsWithWork(this.opts.pool);
    this.observer?.lag(work.reduce((n, w) => n + w.pending, 0));
    const now = Date.now();
    const waiting = new Map<string, number>();
    for (const { collectionId, pending } of work) {
      const since = this.waitingSince.get(collectionId) ?? now;
      if (!eager && pending < this.minBatch && now - since < this.maxDelayMs) {
        waiting.set(collectionId, since);
        continue;
      }
      const fold = await this.fold(collectionId);
      result.folded += fold.folded;
      result.tombstones += fold.tombstones;
      if (fold.folded) result.merged += await this.merge(collectionId);
    }
    this.waitingSince = waiting;
    this.deletedSinceVacuum += result.folded + result.tombstones;
    if (this.deletedSinceVacuum >= 2_000 && Date.now() - this.lastVacuum > 2_000) {
      // the pending and tombstone rows just folded are dead: make their space reusable now
      // rather than at autovacuum's next visit (up to a minute), so the tables stay small
      this.deletedSinceVacuum = 0;
      this.lastVacuum = Date.now();
      await this.opts.pool.query('VACUUM (SKIP_LOCKED) search_pending, search_tombstones');
    }
    if (Date.now() - this.lastCleanup > 5_000) {
      this.lastCleanup = Date.now();
      for (const collectionId of await collectionsWithRetired(this.opts.pool)) {
        await this.transaction('merge', collectionId, (tx) => deleteRetired(tx, collectionId));
      }
    }
    return result;
  }

  /** Folds up to batchSize pending documents of the collection into a new segment. */
  async fold(collectionId: string): Promise<{ folded: number; tombstones: number }> {
    const started = performance.now();
    const done = await this.transaction('fold', collectionId, async (tx) => {
      const docs = await claimPending(tx, collectionId, this.batchSize);
      let folded = 0;
      if (docs.length) {
        const first = await nextDocno(tx, collectionId);
        await insertSegment(tx, {
          collectionId,
          firstDocno: first,
          docCount: docs.length,
          docIds: float64Bytes(docs.map((d) => Number(d.docId))),
          regdates: float64Bytes(docs.map((d) => d.regdate)),
          packed: packPostings(buildPostings(docs)),
        });
        await finishFold(
          tx,
          collectionId,
          docs.map((d) => d.docId),
          first,
        );
        folded = docs.length;
      }
      const tombstones = await applyTombstones(tx, collectionId);
      return { folded, tombstones };
    });
    if (done?.folded) {
      this.observer?.folded(done.folded, (performance.now() - started) / 1000);
    }
    return done ?? { folded: 0, tombstones: 0 };
  }

  /** Merges the first run of same-level neighbours (see pickMerge); returns 1 when it did. */
  async merge(collectionId: string): Promise<number> {
    const started = performance.now();
    const merged = await this.transaction('merge', collectionId, async (tx) => {
      const segments = await liveSegments(tx, collectionId);
      const run = pickMerge(segments);
      if (!run) return 0;
      const parts = segments.slice(run[0], run[1]);
      const ids = parts.map((p) => p.id);
      const isDeleted = deletedTest(await deletedChunks(tx, collectionId));
      const postings = await readAllPostings(tx, ids);
      const lists: PostingList[] = [];
      let n = 0;
      for (const [key, data] of postings) {
        const merged = mergePostings(parts, data, isDeleted);
        if (merged)
          lists.push({ kind: key[0] as PostingList['kind'], term: key.slice(1), data: merged });
        if (++n % 2000 === 0) await yieldToEventLoop(); // keep searches flowing on this thread
      }
      const docCount = parts.reduce((s, p) => s + p.docCount, 0);
      const packed = docCount <= (this.opts.packedMaxDocs ?? PACKED_MAX_DOCS);
      const segmentId = await insertSegment(tx, {
        collectionId,
        firstDocno: parts[0]!.firstDocno,
        docCount,
        ...(await concatenatedDocs(tx, ids)),
        packed: packed ? packPostings(lists) : null,
      });
      if (!packed) await insertPostings(tx, segmentId, lists);
      await retireSegments(tx, ids);
      return 1;
    });
    if (merged) {
      this.observer?.merged((performance.now() - started) / 1000);
    }
    return merged ?? 0;
  }

  /** Runs work in a transaction holding the collection's lock; null when another instance has it. */
  private transaction<T>(
    lock: 'fold' | 'merge',
    collectionId: string,
    work: (tx: pg.PoolClient) => Promise<T>,
  ): Promise<T | null> {
    return inTransaction(
      this.opts.pool,
      (cause) => (cause instanceof Error ? cause : new Error(String(cause))),
      async (tx) => ((await tryLock(tx, lock, collectionId)) ? work(tx) : null),
    );
  }
}

/** What the folder reports (to /metrics, directly or from its worker thread). */
export interface FolderObserver {
  lag(pendingDocuments: number): void;
  folded(documents: number, seconds: number): void;
  merged(seconds: number): void;
}

/** A FolderObserver that records into the service's Prometheus metrics. */
export function folderMetrics(metrics: Metrics | undefined): FolderObserver | undefined {
  if (!metrics) return undefined;
  const { client, registry } = metrics;
  const existing = (name: string) => registry.getSingleMetric(name);
  const lag = (existing('search_fold_lag_documents') ??
    new client.Gauge({
      name: 'search_fold_lag_documents',
      help: 'Committed documents not yet folded into the bitmap index (searched as the pending tail)',
      registers: [registry],
    })) as InstanceType<typeof client.Gauge>;
  const batch = (existing('search_fold_batch_documents') ??
    new client.Histogram({
      name: 'search_fold_batch_documents',
      help: 'Documents folded into one segment',
      buckets: [1, 10, 50, 100, 250, 500, 1000, 2000],
      registers: [registry],
    })) as InstanceType<typeof client.Histogram>;
  const duration = (existing('search_fold_duration_seconds') ??
    new client.Histogram({
      name: 'search_fold_duration_seconds',
      help: 'Duration of one fold or merge transaction of the bitmap index',
      labelNames: ['step'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    })) as InstanceType<typeof client.Histogram<'step'>>;
  return {
    lag: (n) => lag.set(n),
    folded: (n, seconds) => {
      batch.observe(n);
      duration.observe({ step: 'fold' }, seconds);
    },
    merged: (seconds) => duration.observe({ step: 'merge' }, seconds),
  };
}
