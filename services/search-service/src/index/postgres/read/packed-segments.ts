import type { Queryable } from '@hub/service-kit';
import { PackedSegment } from '../format/packed-segment';
import type { IndexCache } from './index-cache';
import { readPacked } from './index-store';

/**
 * Packed segments for searches: from the cache, else Postgres, each segment read once however
 * many searches miss it at the same time.
 *
 * - Right after a bulk load every search misses the segments folded last, and two searches of a
 *   collection run at a time: both used to read the same megabytes and decode them, each
 *   holding the service thread. A segment being read is now awaited by the next search that
 *   needs it instead of read again.
 * - A segment's bytes never change (a merge writes a new segment), so a read made on another
 *   connection, for another snapshot, is as good as one's own.
 * - A segment that read found gone (merged away and dropped) is read again on the search's own
 *   `db`: in a repeatable-read transaction (the snapshot reader's `steady`) it still exists, and
 *   there the search must not fail for another search's newer view.
 * - A read that fails fails every search that awaits it; the next search reads anew.
 */
export interface PackedSegments {
  /** The segments of these ids (distinct), or null when one is gone from Postgres. */
  load(db: Queryable, segmentIds: string[]): Promise<Map<string, PackedSegment> | null>;
}

export function createPackedSegments(cache: IndexCache): PackedSegments {
  /** reads under way, by segment id: the segment, or null when that read found it gone */
  const reading = new Map<string, Promise<PackedSegment | null>>();

  /** one query for these ids, each registered in `reading` until it ends */
  function read(db: Queryable, ids: string[]): Map<string, Promise<PackedSegment | null>> {
    const rows = readPacked(db, ids).then((found) => {
      const byId = new Map<string, PackedSegment>();
      for (const r of found) {
        const segment = new PackedSegment(r.packed);
        cache.setPacked(r.id, segment);
        byId.set(r.id, segment);
      }
      return byId;
    });
    const each = new Map<string, Promise<PackedSegment | null>>();
    for (const id of ids) {
      const one = rows.then((byId) => byId.get(id) ?? null);
      each.set(id, one);
      reading.set(id, one);
      // ended either way: out of `reading` (this also handles a rejection no one awaits)
      const ended = () => {
        if (reading.get(id) === one) reading.delete(id);
      };
      void one.then(ended, ended);
    }
    return each;
  }

  return {
    async load(db, segmentIds) {
      const out = new Map<string, PackedSegment>();
      const shared = new Map<string, Promise<PackedSegment | null>>();
      const unread: string[] = [];
      for (const id of segmentIds) {
        const cached = cache.packed(id);
        if (cached) out.set(id, cached);
        else {
          const underWay = reading.get(id);
          if (underWay) shared.set(id, underWay);
          else unread.push(id);
        }
      }
      const own = unread.length
        ? read(db, unread)
        : new Map<string, Promise<PackedSegment | null>>();
      const goneElsewhere: string[] = [];
      for (const [id, segment] of await awaitAll(shared)) {
        if (segment) out.set(id, segment);
        else goneElsewhere.push(id);
      }
      for (const [id, segment] of await awaitAll(own)) {
        if (!segment) return null;
        out.set(id, segment);
      }
      if (goneElsewhere.length) {
        for (const [id, segment] of await awaitAll(read(db, goneElsewhere))) {
          if (!segment) return null;
          out.set(id, segment);
        }
      }
      return out;
    },
  };
}

async function awaitAll<T>(promises: Map<string, Promise<T>>): Promise<Array<[string, T]>> {
  const ids = [...promises.keys()];
  const values = await Promise.all(promises.values());
  return ids.map((id, i) => [id, values[i]!]);
}
