import type { Logger } from '@hub/service-kit';
import type { SnapshotReader } from './snapshot-reader';

/**
 * Keeps the views of the collections this instance folds current, so that no search waits for
 * one to be built.
 *
 * A collection's view (its result order, collection-view.ts) is built on its first search and
 * extended with each fold's numbers. Built by a search right after a bulk load, it blocked the
 * service thread for ~90 ms at 100,000 documents (a sort of every number), and every search in
 * flight waited behind it: it was one of the two long tasks of the seconds after a load (the
 * bench's p99 by 5 s window: 121–218 ms in the first five seconds, 41–50 after).
 *
 * - After each fold this instance's folder commits (its observer's `folded`), the collection's
 *   view is extended to the folded numbers on the pool: built once during the load, then
 *   extended by one segment at a time (a merge in O(n)), while the adds leave the service
 *   thread idle part of the time.
 * - One warm-up per collection at a time: folds that come while one runs make one more run
 *   after it, not one each.
 * - Best effort: a failure (the collection deleted, a segment merged away meanwhile, the
 *   database away) is logged at debug and forgotten; the next search extends the view itself,
 *   as it always could. Folds made by another instance are not seen here: this instance's
 *   searches extend the view then, as before.
 * - A view is held by the index cache like any other (bounded, least recently used first).
 */
export interface ViewWarmer {
  /** the collection was just folded */
  folded(collectionId: string): void;
  /** no warm-up starts after this; resolves when those under way ended */
  stop(): Promise<void>;
}

export function createViewWarmer(
  reader: Pick<SnapshotReader, 'warmView'>,
  logger: Pick<Logger, 'debug'>,
): ViewWarmer {
  /** collection → whether it was folded again while its warm-up ran */
  const again = new Map<string, boolean>();
  const running = new Set<Promise<void>>();
  let stopped = false;

  async function warm(collectionId: string): Promise<void> {
    try {
      do {
        again.set(collectionId, false);
        await reader.warmView(collectionId);
      } while (again.get(collectionId) && !stopped);
    } catch (err) {
      logger.debug({ collectionId, err: String(err) }, 'search view warm-up skipped');
    } finally {
      again.delete(collectionId);
    }
  }

  return {
    folded(collectionId) {
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
