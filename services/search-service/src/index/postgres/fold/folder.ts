import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type pg from 'pg';
import {
  asIs,
  backoffMs,
  createWorkerLoop,
  errorText,
  inTransaction,
  sqlState,
  type Logger,
} from '@hub/service-kit';
import { COLLECTION_GONE, float64Bytes, postingKeyParts, type PostingList } from '../layout';
import { dropIndexOfDeleted } from '../write/change-store';
import {
  applyTombstones,
  claimPending,
  collectionsWithWork,
  finishFold,
  insertPostings,
  insertSegment,
  nextDocno,
  tryLock,
} from './fold-store';
import type { FolderObserver } from './folder-metrics';
import {
  collectionsWithRetired,
  concatenatedDocs,
  deletedChunks,
  deletedTest,
  deleteRetired,
  liveSegments,
  readAllPostings,
  retireSegments,
} from './merge-store';
import { PACKED_MAX_DOCS, packPostings } from '../format/packed-segment';
import { buildPostings, mergePostings, pickMerge } from './segment-builder';

export interface FolderOptions {
  pool: pg.Pool;
  logger: Logger;
  /** where batch sizes and durations go (default: nowhere) */
  observer?: FolderObserver;
  /** documents per fold (one segment); default 2,000 */
  batchSize?: number;
  /** pause between rounds when there was nothing to do; default 100 ms */
  idleMs?: number;
  /** the background loop folds a collection at this many pending documents; default 1,000 */
  minBatch?: number;
  /** ... or when it has had pending work this long; default 1,000 ms */
  maxDelayMs?: number;
  /** ... or when its pending documents have not grown for this long; default QUIET_MS */
  quietMs?: number;
  /** merged segments of at most this many documents stay packed; default PACKED_MAX_DOCS */
  packedMaxDocs?: number;
}

/** How a folder folds and merges, whatever thread it runs on (its settings, not its I/O). */
export type FoldSettings = Omit<FolderOptions, 'pool' | 'logger' | 'observer'>;

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
export interface IndexFolder {
  /**
   * Runs rounds until stop(); resolves then. A round that fails ends the run: it rejects with
   * the cause, and its supervisor (folder-supervisor.ts) logs that and runs it again after a
   * backoff. A second call while a run is under way answers that run.
   */
  run(): Promise<void>;
  /** Lets the round under way and the merges beside it finish; starts no other. */
  stop(): Promise<void>;
  /**
   * One round: fold every collection with work once, then at most one merge per collection
   * (eager: awaited before the next collection; the background loop's: beside its next folds,
   * counted in the round after it finished, see mergeBeside).
   * `eager` false (the background loop): a collection is folded once it has minBatch pending
   * documents, has had pending work for maxDelayMs, or its pending documents have not grown for
   * quietMs (its writes paused: nothing is gained by waiting), so that a busy collection is
   * folded in large, cheap batches (a fold's cost is mostly per distinct term) while its
   * pending tail, which searches scan, stays bounded, and is folded soon after a burst of
   * writes ends. Tests call round() eagerly.
   */
  round(eager?: boolean): Promise<RoundResult>;
  /** Folds up to batchSize pending documents of the collection into a new segment. */
  fold(collectionId: string): Promise<{ folded: number; tombstones: number }>;
  /** Merges the run pickMerge chooses (the smallest balanced one); returns 1 when it did. */
  merge(collectionId: string): Promise<number>;
}

export function createIndexFolder(opts: FolderOptions): IndexFolder {
  const { pool, observer } = opts;
  const batchSize = opts.batchSize ?? 2000;
  const idleMs = opts.idleMs ?? 100;
  const minBatch = Math.min(opts.minBatch ?? 1000, batchSize);
  const maxDelayMs = opts.maxDelayMs ?? 1000;
  const quietMs = opts.quietMs ?? QUIET_MS;
  let lastCleanup = 0;
  let lastVacuum = 0;
  /** the collections with pending work this folder has not folded yet: since when, and growth */
  let waiting = new Map<string, Waiting>();
  let deletedSinceVacuum = 0;
  /** collections whose last fold or merge failed: not tried again before `until` */
  const failing = new Map<string, { failures: number; until: number }>();
  /** the background loop's merges under way, by collection (one at a time per collection) */
  const merging = new Map<string, Promise<void>>();
  /** merges that finished beside the folds since the loop's last round (counted in its next) */
  let mergedMeanwhile = 0;
  /** a background merge's failure that is not its collection's: the next round fails with it */
  let mergeFailure: { err: unknown } | null = null;

  /**
   * Runs work in a transaction holding the collection's lock; null when another instance has it,
   * or when the collection was deleted meanwhile (what the work writes fails its foreign key):
   * a normal outcome, after which whatever is left of its index goes, so it is not tried again.
   */
  async function transaction<T>(
    lock: 'fold' | 'merge',
    collectionId: string,
    work: (tx: pg.PoolClient) => Promise<T>,
  ): Promise<T | null> {
    try {
      return await inTransaction(pool, asIs, async (tx) =>
        (await tryLock(tx, lock, collectionId)) ? work(tx) : null,
      );
    } catch (err) {
      if (sqlState(err) !== COLLECTION_GONE) throw err;
      if (!(await inTransaction(pool, asIs, (tx) => dropIndexOfDeleted(tx, collectionId))))
        throw err;
      opts.logger.info({ collectionId }, 'search index of a deleted collection dropped');
      return null;
    }
  }

  /**
   * A fold or merge of one collection failed. When the failure is the collection's (see
   * collectionFailure) and the database still answers, it is logged and the collection is set
   * aside for a backoff (1 s doubling to 5 min) while the round goes on with the others, so one
   * tenant's failing fold never holds up everyone else's. Otherwise (a lost connection, an
   * outage) the round fails, and the supervisor restarts the folder with its own backoff.
   */
  async function setAside(collectionId: string, err: unknown): Promise<void> {
    if (!collectionFailure(err)) throw err;
    await pool.query('SELECT 1');
    const failures = (failing.get(collectionId)?.failures ?? 0) + 1;
    const delayMs = backoffMs(failures, 1_000, 300_000);
    failing.set(collectionId, { failures, until: Date.now() + delayMs });
    opts.logger.error(
      { collectionId, err: errorText(err), failures, retryInMs: delayMs },
      'search index fold of a collection failed; set aside, the others go on',
    );
  }

  async function round(eager = true): Promise<RoundResult> {
    if (mergeFailure) {
      const { err } = mergeFailure;
      mergeFailure = null;
      throw err;
    }
    const result: RoundResult = { folded: 0, tombstones: 0, merged: mergedMeanwhile };
    mergedMeanwhile = 0;
    const work = await collectionsWithWork(pool);
    const now = Date.now();
    const stillWaiting = new Map<string, Waiting>();
    for (const { collectionId, pending } of work) {
      const seen = waiting.get(collectionId);
      const w: Waiting = {
        since: seen?.since ?? now,
        pending,
        grewAt: seen && pending <= seen.pending ? seen.grewAt : now,
      };
      if (!eager && pending < minBatch && now - w.since < maxDelayMs && now - w.grewAt < quietMs) {
        stillWaiting.set(collectionId, w);
        continue;
      }
      if ((failing.get(collectionId)?.until ?? 0) > now) continue;
      try {
        const done = await fold(collectionId);
        result.folded += done.folded;
        result.tombstones += done.tombstones;
        if (done.folded) {
          if (eager) result.merged += await merge(collectionId);
          else mergeBeside(collectionId);
        }
        failing.delete(collectionId);
      } catch (err) {
        await setAside(collectionId, err);
      }
    }
    waiting = stillWaiting;
    deletedSinceVacuum += result.folded + result.tombstones;
    if (deletedSinceVacuum >= 2_000 && Date.now() - lastVacuum > 2_000) {
      deletedSinceVacuum = 0;
      lastVacuum = Date.now();
      await pool.query(`VACUUM (SKIP_LOCKED) ${VACUUMED_AS_FOLDED}`);
    }
    if (Date.now() - lastCleanup > 5_000) {
      lastCleanup = Date.now();
      for (const collectionId of await collectionsWithRetired(pool)) {
        await transaction('merge', collectionId, (tx) => deleteRetired(tx, collectionId));
      }
    }
    return result;
  }

  async function fold(collectionId: string): Promise<{ folded: number; tombstones: number }> {
    const started = performance.now();
    const done = await transaction('fold', collectionId, async (tx) => {
      const docs = await claimPending(tx, collectionId, batchSize);
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
      observer?.folded(done.folded, (performance.now() - started) / 1000, collectionId);
    }
    return done ?? { folded: 0, tombstones: 0 };
  }

  /**
   * The background loop's merge of a collection, beside its folds rather than between them: a
   * merge of large segments takes seconds (5.3 s at 1,000,000 documents), and while the loop
   * waited for it no fold ran, so a load left 5,288 documents pending that every search then
   * matched one by one (the first of them read every pending row whole: a first 5 s window with
   * a p99 of 1,576 ms). The collection's fold and merge locks are apart (as between instances),
   * so its next folds go on meanwhile; at most one merge per collection is under way. A failure
   * is the collection's (set aside, as a fold's) or ends the next round (the supervisor's).
   */
  function mergeBeside(collectionId: string): void {
    if (merging.has(collectionId)) return;
    const underWay = merge(collectionId)
      .then(
        (n) => {
          mergedMeanwhile += n;
        },
        (err: unknown) =>
          setAside(collectionId, err).catch((cause: unknown) => {
            mergeFailure ??= { err: cause };
          }),
      )
      .finally(() => merging.delete(collectionId));
    merging.set(collectionId, underWay);
  }

  async function merge(collectionId: string): Promise<number> {
    const started = performance.now();
    const merged = await transaction('merge', collectionId, async (tx) => {
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
        if (merged) lists.push({ ...postingKeyParts(key), data: merged });
        if (++n % 2000 === 0) await yieldToEventLoop(); // keep searches flowing on this thread
      }
      const docCount = parts.reduce((s, p) => s + p.docCount, 0);
      const packed = docCount <= (opts.packedMaxDocs ?? PACKED_MAX_DOCS);
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
      observer?.merged((performance.now() - started) / 1000, collectionId);
    }
    return merged ?? 0;
  }

  /**
   * The background rounds (run / stop): the next at once after one that folded or merged, after
   * idleMs otherwise; a round that fails ends the run, rejecting with its cause.
   */
  const loop = createWorkerLoop({
    step: async () => {
      const r = await round(false);
      return r.folded > 0 || r.merged > 0;
    },
    pollIntervalMs: idleMs,
    logger: opts.logger,
    onFailure: 'end',
  });

  return {
    run: () => loop.run(),
    stop: async () => {
      await loop.stop();
      await Promise.all(merging.values());
    },
    round,
    fold,
    merge,
  };
}

/** A collection's pending work the background loop waits to fold (see IndexFolder.round). */
interface Waiting {
  /** when this folder first saw it */
  since: number;
  /** its pending documents at the last round */
  pending: number;
  /** when they last grew (or were first seen) */
  grewAt: number;
}

/**
 * How long a collection's pending documents must not grow before they are folded short of
 * minBatch: the folder looks every idleMs (100 ms), so a burst of writes is folded within
 * ~0.2–0.3 s of its end instead of maxDelayMs. Right after a 100,000-document load, the
 * ~800 documents left pending until then halved the searches served in the first second: each
 * search matches the pending tail on its own (measured 2026-11-27: 90 searches per 250 ms
 * before that fold, 180–210 after it).
 */
export const QUIET_MS = 150;

/**
 * What the folder vacuums after every 2,000 documents it folds (at most every 2 s):
 * - search_pending, search_tombstones: the rows just folded are dead; their space is reusable
 *   now rather than at autovacuum's next visit (up to a minute), so the tables stay small.
 * - documents, search_postings, search_segments: what searches read, new since the last
 *   VACUUM. A row's first reader sets its hint bits, and with data checksums (PostgreSQL 18's
 *   initdb default) the first change of a page after a checkpoint writes the whole page to the
 *   WAL. After a 100,000-document load, that fell on the searches right after it: autovacuum's
 *   first VACUUM of documents (2.6–5.4 s; 170–250 MB of WAL, ~22,000 full-page images, where
 *   measured) ran under one of the bench's two measurements right after the load in ten of
 *   eleven runs on 2026-11-27; the one run without it met both bounds. Vacuumed a few
 *   thousand rows at a time, on the folder's connection, pages are set while they are fresh
 *   (mostly before the next checkpoint, so without whole-page images), and autovacuum finds no
 *   backlog after the load.
 *   VACUUM reads only the pages not all-visible since the last one (the visibility map), and
 *   skips index vacuuming when there are few dead rows.
 */
const VACUUMED_AS_FOLDED = [
  'search_pending',
  'search_tombstones',
  'documents',
  'search_postings',
  'search_segments',
].join(', ');

/** SQLSTATE classes of the server or the connection, not of the statement: 08 connection, 53
 * insufficient resources, 57 operator intervention (a terminated backend), 58 system error. */
const OUTAGE_CLASSES = new Set(['08', '53', '57', '58']);

/**
 * Whether a fold's or merge's failure comes from the collection's own work: an error Postgres
 * raised for a statement (a SQLSTATE outside the outage classes), or a JavaScript TypeError /
 * RangeError of the fold's code on that collection's data. A failure without a SQLSTATE (the
 * connection dropped, a timeout) is an outage.
 */
function collectionFailure(err: unknown): boolean {
  const state = sqlState(err);
  if (state !== undefined && /^[0-9A-Z]{5}$/.test(state))
    return !OUTAGE_CLASSES.has(state.slice(0, 2));
  return err instanceof TypeError || err instanceof RangeError;
}
