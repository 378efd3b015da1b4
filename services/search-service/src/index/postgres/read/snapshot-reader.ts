import { LRUCache } from 'lru-cache';
import type pg from 'pg';
import { asIs, inTransaction, type Queryable } from '@hub/service-kit';
import { clearBit, type Bitset } from '../format/bitset';
import { CollectionView } from './collection-view';
import { ABSENT, categoryLists, type CategoryLists, type IndexCache } from './index-cache';
import { DELETED_CHUNK, deletedWords, postingKey, type PostingKind } from '../layout';
import {
  readCategoryLists,
  readDeleted,
  readCategoryTerms,
  readFoldedState,
  readPostings,
  readSegmentDocs,
  readSnapshotRows,
  type FoldedState,
  type PendingRowRead,
  type ListTriple,
  type PostingRow,
  type SegmentRef,
  type Snapshot,
  type SnapshotRows,
} from './index-store';
import { pendingRow, pendingTail, type PendingRow, type SnapshotFilter } from './pending-tail';
import { PackedSegment, packedKey } from '../format/packed-segment';
import { createPackedSegments } from './packed-segments';
import { orPostingsInto, postingsCount } from '../format/postings-codec';
import { readPrefixLists, type PrefixLists } from './term-dictionary';
import { orUnionInto, termBitsKey } from './term-bitsets';

/**
 * The snapshot changed under a search read on the pool: a part it lists is gone from Postgres
 * (a segment merged away and dropped, a deleted bitmap folded to a newer version), so read it
 * again. Never thrown for something the cache let go of (what a search found in the cache it
 * holds until it ends), nor inside `steady` (every read there sees the snapshot's rows).
 */
export class SnapshotMoved extends Error {}

export interface PostingKey {
  kind: PostingKind;
  term: string;
}

/**
 * The posting lists of a search's keys over one snapshot's segments, held for the search
 * (packed segments and row lists alike: a cache eviction meanwhile costs nothing). Only lists
 * that exist are held: a key no segment has takes no memory.
 */
export interface PostingLists {
  /** ORs the key's lists into `bits`; false when no segment has the key (bits untouched) */
  orInto(key: PostingKey, bits: Bitset): boolean;
  /** the number of documents in the key's lists over every segment (deleted ones too) */
  count(key: PostingKey): number;
  /**
   * Only for lists read with `allCategories`: calls `each` with every category list of the
   * snapshot's segments, with its category and the first number of its segment.
   */
  eachCategoryList(each: (category: number, list: Buffer, firstDocno: number) => void): void;
}

/**
 * Absent (segment, category) pairs are cached only for a search of at most this many distinct
 * categories: a search listing thousands of categories the collection does not have must not
 * fill the cache shared by every collection with their absence. A search of more reads the
 * categories each row segment has first (one query, as many terms as the collection has) and
 * asks for the lists of those only.
 */
export const CACHED_ABSENT_CATEGORIES = 64;

/**
 * At most this many (segment, kind, term) lists are asked for with a snapshot: each is one probe
 * of search_postings' key in the snapshot statement. A search of many terms over many row
 * segments reads the rest after, as before.
 */
export const COLD_LISTS_WITH_SNAPSHOT = 256;

/** Collections whose last live segments a reader keeps (for the lists asked with a snapshot). */
const SEGMENT_LISTS_KEPT = 10_000;

/**
 * What a search reads of one collection: its snapshot, then the snapshot's result order,
 * posting lists and deleted numbers, each from the in-process cache or else Postgres, on the
 * `db` it is given. Where the reads run is the caller's choice:
 *
 * - `pooled`: each read on any connection of the pool (no transaction held). A part that is
 *   gone from Postgres by the time it is read (merged and dropped, a newer deleted version)
 *   throws SnapshotMoved.
 * - `steady`: every read on one connection, in a REPEATABLE READ READ ONLY transaction whose
 *   first statement is the snapshot: each later read sees the rows that statement saw (a
 *   segment deleted since, a deleted bitmap's older version), so the snapshot cannot move. It
 *   holds a connection of the pool until the search's reads end.
 */
export interface SnapshotReader {
  pooled<T>(work: (db: Queryable) => Promise<T>): Promise<T>;
  steady<T>(work: (db: Queryable) => Promise<T>): Promise<T>;
  /**
   * The first read of a search (in `steady`, its transaction's first statement): the snapshot,
   * with the pending tail matched here (pending-tail.ts) over the collection's pending rows,
   * whose terms are read only for rows not already in the cache. While the collection's first
   * read (nothing of its pending rows cached) is under way, another waits for it first. With
   * `documents` (documents.id), the snapshot's `documents` are those of them the collection has,
   * as stored, read by the same statement. With `lists` (the search's keys of q's terms), the
   * same statement reads their lists that the cache lacks in the row segments of the
   * collection's last snapshot here (at most COLD_LISTS_WITH_SNAPSHOT), into the cache, where
   * `postings` then finds them: a search of terms read cold makes one round trip, not two.
   */
  snapshot(
    db: Queryable,
    collectionId: string,
    filter: SnapshotFilter,
    ahead?: { documents?: readonly string[]; lists?: readonly PostingKey[] },
  ): Promise<Snapshot>;
  /** The collection's view, extended to every number of the snapshot. */
  view(db: Queryable, collectionId: string, snap: FoldedState): Promise<CollectionView>;
  /**
   * Reads what a search of the collection reads first, now, on the pool, before a search needs
   * it (the engine calls this after each fold and merge of the collection this instance makes,
   * index-warmer.ts): its view extended to its folded numbers, its packed segments into the
   * cache, and its live segments as the ones whose cold lists a snapshot reads.
   */
  warm(collectionId: string): Promise<void>;
  /**
   * The posting lists of these keys (distinct) over the snapshot's segments; with
   * `allCategories` (facet counts), every category list the segments have too.
   */
  postings(
    db: Queryable,
    snap: Snapshot,
    keys: PostingKey[],
    opts?: { allCategories?: boolean },
  ): Promise<PostingLists>;
  /**
   * prefix=1: the lists of these kinds whose term starts with `prefix`, over the snapshot's
   * segments (term-dictionary.ts).
   */
  prefixLists(
    db: Queryable,
    snap: Snapshot,
    prefix: string,
    kinds: PostingKind[],
  ): Promise<PrefixLists>;
  /** Clears the snapshot's deleted numbers (deleted-chunk versions plus tombstones) in `bits`. */
  removeDeleted(db: Queryable, collectionId: string, snap: Snapshot, bits: Bitset): Promise<void>;
}

export function createSnapshotReader(pool: pg.Pool, cache: IndexCache): SnapshotReader {
  const packedSegments = createPackedSegments(cache);
  /** a pending row read whole, now cached */
  function rowRead(r: PendingRowRead): PendingRow {
    const row = pendingRow(r.rowId, r.docId, r.regdate, r.categories, r.terms, r.titleTerms);
    cache.setPendingRow(row);
    return row;
  }

  /**
   * The read under way of a collection whose pending rows the cache knows nothing of (its
   * first search here, or the cache let go of them). It reads every pending row whole: right
   * after a bulk load ~1,000 rows of ~150 terms, and the 16 searches that came at once each read
   * and parsed them all (~46 ms of the service thread in the first quarter second, the bench's
   * CPU profile). A search that finds one under way waits for it and then holds its rows.
   */
  const coldReads = new Map<string, Promise<unknown>>();
  /** view extensions in progress, so concurrent searches extend a view once */
  const extending = new Map<string, Promise<CollectionView>>();
  /** each collection's live segments as its last snapshot here listed them */
  const lastSegments = new LRUCache<string, readonly SegmentRef[]>({ max: SEGMENT_LISTS_KEPT });

  /** the lists of these keys that the cache lacks in the collection's last row segments */
  function coldLists(collectionId: string, keys: readonly PostingKey[]): ListTriple[] {
    const cold: ListTriple[] = [];
    const segments = keys.length ? lastSegments.get(collectionId) : undefined;
    for (const s of segments ?? []) {
      if (s.packed) continue; // read whole, on its own
      for (const { kind, term } of keys) {
        if (cache.posting(s.id, kind, term) !== undefined) continue;
        cold.push({ segmentId: s.id, kind, term });
        if (cold.length === COLD_LISTS_WITH_SNAPSHOT) return cold;
      }
    }
    return cold;
  }

  /** the lists read with a snapshot, into the cache: those of its live segments */
  function keepLists(snap: Pick<Snapshot, 'segments'>, lists: SnapshotRows['lists']): void {
    if (!lists.length) return;
    const live = new Set(snap.segments.map((s) => s.id));
    for (const l of lists) {
      if (live.has(l.segmentId)) cache.setPosting(l.segmentId, l.kind, l.term, l.data);
    }
  }

  async function extend(
    db: Queryable,
    view: CollectionView,
    snap: FoldedState,
  ): Promise<CollectionView> {
    const needed = snap.segments.filter((s) => s.firstDocno + s.docCount > view.size);
    const docs = await readSegmentDocs(
      db,
      needed.map((s) => s.id),
    );
    if (docs.length !== needed.length) throw new SnapshotMoved();
    view.appendSegments(docs);
    if (view.size < snap.nextDocno) throw new SnapshotMoved();
    cache.setView(view);
    return view;
  }

  return {
    pooled: (work) => work(pool),

    steady: (work) =>
      inTransaction(pool, asIs, (tx) => work(tx), { isolation: 'repeatable read', readOnly: true }),

    async snapshot(db, collectionId, filter, ahead = {}) {
      let known = cache.pendingRowIds(collectionId);
      const cold = known ? undefined : coldReads.get(collectionId);
      if (cold) {
        // the collection's first read brings every pending row: wait for it, then hold them
        await cold.catch(() => {});
        known = cache.pendingRowIds(collectionId);
      }
      /** the pending rows this search holds (from the cache), by row id */
      const held = new Map<number, PendingRow>();
      for (const rowId of known ?? []) {
        const row = cache.pendingRow(rowId);
        if (row) held.set(rowId, row);
      }
      const reading = readSnapshotRows(
        db,
        collectionId,
        [...held.keys()],
        ahead.documents,
        coldLists(collectionId, ahead.lists ?? []),
      ).then((read) => {
        const rows = [...read.held.map((rowId) => held.get(rowId)!), ...read.fresh.map(rowRead)];
        cache.setPendingRowIds(
          collectionId,
          Float64Array.from(rows, (r) => r.rowId),
        );
        keepLists(read.snapshot, read.lists);
        lastSegments.set(collectionId, read.snapshot.segments);
        return { snapshot: read.snapshot, rows, documents: read.documents };
      });
      if (!known && !coldReads.has(collectionId)) {
        coldReads.set(collectionId, reading);
        const ended = () => coldReads.delete(collectionId);
        void reading.then(ended, ended);
      }
      const { snapshot, rows, documents: found } = await reading;
      return { ...snapshot, ...pendingTail(rows, filter), documents: found };
    },

    async view(db, collectionId, snap) {
      const epoch = snap.epoch!;
      const key = `${collectionId}:${epoch}`;
      for (;;) {
        const view = cache.view(collectionId, epoch) ?? new CollectionView(collectionId, epoch);
        if (view.size >= snap.nextDocno) return view;
        const running = extending.get(key);
        if (running) {
          // its view, also when the cache did not keep it (a view larger than the cache)
          const extended = await running.catch(() => null);
          if (extended && extended.size >= snap.nextDocno) return extended;
          continue;
        }
        const extension = extend(db, view, snap).finally(() => extending.delete(key));
        extending.set(key, extension);
        return extension;
      }
    },

    async warm(collectionId) {
      const state = await readFoldedState(pool, collectionId);
      if (state.epoch === null || state.nextDocno === 0) return;
      lastSegments.set(collectionId, state.segments);
      // load reads only the segments neither cached nor being read already
      const packed = state.segments.filter((s) => s.packed).map((s) => s.id);
      await Promise.all([this.view(pool, collectionId, state), packedSegments.load(pool, packed)]);
    },

    async postings(db, snap, keys, opts = {}) {
      const allCategories = opts.allCategories === true;
      const packed = new Map<string, PackedSegment>();
      const missingPacked: string[] = [];
      /** row lists held for this search, by segment id + ":" + postingKey (present lists only) */
      const held = new Map<string, Buffer>();
      const missingSegments = new Set<string>();
      const missingKeys = new Map<string, PostingKey>();
      /** with allCategories: each row segment's category lists (one cache entry per segment) */
      const rowCategories = new Map<string, CategoryLists>();
      const missingCategories: string[] = [];
      const categories = keys.filter((k) => k.kind === 'c').length;
      const rowIds = snap.segments.filter((s) => !s.packed).map((s) => s.id);
      /** with many categories: the categories each row segment has (a list is read only for them) */
      let has: Map<string, Set<string>> | null = null;
      if (!allCategories && categories > CACHED_ABSENT_CATEGORIES && rowIds.length) {
        has = await readCategoryTerms(db, rowIds);
        if (has.size !== rowIds.length) throw new SnapshotMoved();
      }
      for (const s of snap.segments) {
        if (s.packed) {
          const cached = cache.packed(s.id);
          if (cached) packed.set(s.id, cached);
          else missingPacked.push(s.id);
          continue;
        }
        if (allCategories) {
          const cached = cache.categoryLists(s.id);
          if (cached) rowCategories.set(s.id, cached);
          else missingCategories.push(s.id);
        }
        for (const k of keys) {
          if (k.kind === 'c' && allCategories) continue; // in the segment's category lists
          if (has && k.kind === 'c' && !has.get(s.id)!.has(k.term)) continue; // no list
          const cached = cache.posting(s.id, k.kind, k.term);
          if (cached === undefined) {
            missingSegments.add(s.id);
            missingKeys.set(postingKey(k.kind, k.term), k);
          } else if (cached !== ABSENT) held.set(`${s.id}:${postingKey(k.kind, k.term)}`, cached);
        }
      }
      const none = { segmentIds: [], rows: [] };
      const [packedRead, found, categoryRows] = await Promise.all([
        missingPacked.length
          ? packedSegments.load(db, missingPacked)
          : new Map<string, PackedSegment>(),
        missingSegments.size
          ? readPostings(db, [...missingSegments], [...missingKeys.values()])
          : none,
        missingCategories.length ? readCategoryLists(db, missingCategories) : none,
      ]);
      if (!packedRead) throw new SnapshotMoved();
      for (const [id, segment] of packedRead) packed.set(id, segment);
      if (found.segmentIds.length !== missingSegments.size) throw new SnapshotMoved();
      if (categoryRows.segmentIds.length !== missingCategories.length) throw new SnapshotMoved();
      const bySegment = new Map(missingCategories.map((id) => [id, [] as PostingRow[]]));
      for (const r of categoryRows.rows) bySegment.get(r.segmentId)!.push(r);
      for (const [id, rows] of bySegment) {
        const lists = categoryLists(rows);
        cache.setCategoryLists(id, lists);
        rowCategories.set(id, lists);
      }
      // the listed categories' lists of row segments, for orInto
      for (const [id, lists] of rowCategories) {
        for (const k of keys) {
          const list = k.kind === 'c' ? lists.byTerm.get(k.term) : undefined;
          if (list) held.set(`${id}:${postingKey(k.kind, k.term)}`, list);
        }
      }
      for (const r of found.rows) {
        cache.setPosting(r.segmentId, r.kind, r.term, r.data);
        held.set(`${r.segmentId}:${r.kind}${r.term}`, r.data);
      }
      for (const k of missingKeys.values()) {
        if (k.kind === 'c' && categories > CACHED_ABSENT_CATEGORIES) continue;
        for (const id of missingSegments) {
          if (!held.has(`${id}:${postingKey(k.kind, k.term)}`))
            cache.setPosting(id, k.kind, k.term, null);
        }
      }
      /** calls `each` with the key's list in each segment that has one and ends after `from` */
      const eachList = (
        k: PostingKey,
        each: (data: Buffer, firstDocno: number) => void,
        from = 0,
      ) => {
        const inPacked = packedKey(k.kind, k.term);
        for (const s of snap.segments) {
          if (s.firstDocno + s.docCount <= from) continue;
          const data = s.packed
            ? packed.get(s.id)!.get(inPacked)
            : held.get(`${s.id}:${postingKey(k.kind, k.term)}`);
          if (data) each(data, s.firstDocno);
        }
      };
      return {
        orInto(k, bits) {
          // the key's union over the collection, cached (term-bitsets.ts)
          return orUnionInto(
            cache,
            termBitsKey(snap, `T${postingKey(k.kind, k.term)}`),
            snap,
            {
              orFrom(from, into) {
                let any = false;
                eachList(
                  k,
                  (data, firstDocno) => {
                    orPostingsInto(data, firstDocno, into);
                    any = true;
                  },
                  from,
                );
                return any;
              },
              bytesFrom(from) {
                let bytes = 0;
                eachList(k, (data) => (bytes += data.byteLength), from);
                return bytes;
              },
            },
            bits,
          );
        },
        count(k) {
          let n = 0;
          eachList(k, (data) => {
            n += postingsCount(data);
          });
          return n;
        },
        eachCategoryList(each) {
          if (!allCategories) throw new Error('category lists were not read');
          for (const s of snap.segments) {
            if (s.packed) {
              packed.get(s.id)!.eachCategory((c, list) => each(c, list, s.firstDocno));
              continue;
            }
            for (const [c, list] of rowCategories.get(s.id)!.lists) each(c, list, s.firstDocno);
          }
        },
      };
    },

    async prefixLists(db, snap, prefix, kinds) {
      const lists = await readPrefixLists(db, cache, packedSegments, snap, prefix, kinds);
      if (!lists) throw new SnapshotMoved(); // a segment merged away and dropped
      return lists;
    },

    async removeDeleted(db, collectionId, snap, bits) {
      const epoch = snap.epoch!;
      /** the chunks' bitmaps held for this search (the cache may let go of them meanwhile) */
      const held = new Map<number, Uint32Array>();
      const missing: number[] = [];
      for (const [chunk, version] of snap.deleted) {
        const cached = cache.deleted(collectionId, epoch, chunk, version);
        if (cached) held.set(chunk, cached);
        else missing.push(chunk);
      }
      if (missing.length) {
        const versions = new Map(snap.deleted);
        for (const r of await readDeleted(db, collectionId, missing)) {
          const words = deletedWords(r.bits);
          cache.setDeleted(collectionId, epoch, r.chunk, r.version, words);
          if (r.version === versions.get(r.chunk)) held.set(r.chunk, words);
        }
      }
      for (const [chunk] of snap.deleted) {
        const words = held.get(chunk);
        if (!words) throw new SnapshotMoved(); // a newer version was folded in between
        const base = (chunk * DELETED_CHUNK) >>> 5;
        for (let i = 0; i < words.length && base + i < bits.length; i++)
          bits[base + i]! &= ~words[i]!;
      }
      for (const docno of snap.tombstones) if (docno < snap.nextDocno) clearBit(bits, docno);
    },
  };
}
