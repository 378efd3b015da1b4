import type { Logger } from '@hub/service-kit';
import type { SnapshotReader } from './snapshot-reader';

/**
 * Keeps what a search of a collection this instance folds reads first warm, so that no search
 * waits for it to be read or built: the collection's view, its packed segments, and its live
 * segments as the snapshot reader knows them (the cold lists a search asks for with its
 * snapshot are those of these segments). See SnapshotReader.warm.
 *
 * - The view (its result order, collection-view.ts) is built on a collection's first search and
 *   extended with each fold's numbers. Built by a search right after a bulk load, it blocked the
 *   service thread for ~90 ms at 100,000 documents (a sort of every number), and every search in
 *   flight waited behind it (the bench's p99 by 5 s window: 121–218 ms in the first five
 *   seconds, 41–50 after).
 * - The packed segments (every fold's, the first merges') were read whole by the first searches
 *   after a load, which had never been searched during it: 70–80 ms of a search's postings read
 *   right after a 100,000-document load, while the searches behind it (two run at a time per
 *   collection) waited, 113–219 ms for the first sixteen (2026-11-27).
 *
 * - After each fold or merge this instance's folder commits (its observer's `folded` and
 *   `merged`), the collection is warmed on the pool: built once during the load, then extended
 *   by one segment at a time, while the adds leave the service thread idle part of the time.
 * - One warm-up per collection at a time: changes that come while one runs make one more run
 *   after it, not one each.
 * - Best effort: a failure (the collection deleted, a segment merged away meanwhile, the
 *   database away) is logged at debug and forgotten; the next search reads what it lacks itself,
 *   as it always could. Folds made by another instance are not seen here: this instance's
 *   searches read what they lack then, as before.
 * - What is warmed is held by the index cache like anything else (bounded, least recently used
 *   first); a collection's packed segments are its small ones only (at most PACKED_MAX_DOCS
 *   documents each, a few MB in all).
 */
export interface IndexWarmer {
  /** the collection was just folded or merged */
  changed(collectionId: string): void;
  /** no warm-up starts after this; resolves when those under way ended */
  stop(): Promise<void>;
}

export function createIndexWarmer(
  reader: Pick<SnapshotReader, 'warm'>,
  logger: Pick<Logger, 'debug'>,
): IndexWarmer {
  /** collection → whether it changed again while its warm-up ran */
  const again = new Map<string, boolean>();
  const running = new Set<Promise<void>>();
  let stopped = false;

  async function warm(collectionId: string): Promise<void> {
    try {
      do {
        again.set(collectionId, false);
        await reader.warm(collectionId);
      } while (again.get(collectionId) && !stopped);
    } catch (err) {
      logger.debug({ collectionId, err: String(err) }, 'search index warm-up skipped');
    } finally {
      again.delete(collectionId);
    }
  }

  return {
    changed(collectionId) {
      if (stopped) return;
      if (again.has(collectionId)) {
        again.set(collectionId, true);
        return;
      }
      const run = warm(collectionId);
      running.add(run);
      void run.finally(() => running.delete(run));
    },
    async stop() {
      stopped = true;
      await Promise.all(running);
    },
  };
}
