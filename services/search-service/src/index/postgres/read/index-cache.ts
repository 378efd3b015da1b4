import { LRUCache } from 'lru-cache';
import type { CollectionView } from './collection-view';
import type { PackedSegment } from '../format/packed-segment';
import type { PackedTermDictionary } from '../format/packed-term-dictionary';
import type { PendingRow } from './pending-tail';

/** A posting list known to be absent from a segment (cached too: most terms are in few segments). */
export const ABSENT: Buffer = Buffer.alloc(0);

/**
 * Every category list of one row segment, as one entry (facet counts read them all; one
 * lookup per segment, not one per category). Segments never change.
 */
export interface CategoryLists {
  /** [category, list] per category of the segment */
  readonly lists: ReadonlyArray<readonly [category: number, list: Buffer]>;
  /** the same lists by term (the category as text) */
  readonly byTerm: ReadonlyMap<string, Buffer>;
  /** memory held, for the cache's size limit */
  readonly bytes: number;
}

/** A row segment's category lists (term and list each) as the cache keeps them. */
export function categoryLists(rows: Array<{ term: string; data: Buffer }>): CategoryLists {
  let bytes = 64;
  for (const r of rows) bytes += r.data.byteLength + 2 * r.term.length + 160;
  return {
    lists: rows.map((r) => [Number(r.term), r.data] as const),
    byTerm: new Map(rows.map((r) => [r.term, r.data])),
    bytes,
  };
}

/** A row segment's lists of one kind whose terms start with one prefix (cached as one entry). */
export interface PrefixRows {
  readonly lists: readonly Buffer[];
  readonly bytes: number;
}

/** One key's union of lists over the numbers [0, coveredTo) (term-bitsets.ts). */
export interface TermBits {
  readonly bits: Uint32Array;
  readonly coveredTo: number;
  /** whether any segment had a list of the key */
  readonly any: boolean;
  readonly bytes: number;
}

type Entry =
  | Buffer
  | Uint32Array
  | CollectionView
  | PackedSegment
  | CategoryLists
  | PackedTermDictionary
  | PrefixRows
  | PendingRow
  | Float64Array;

/**
 * Term bitsets' own share of the cache's bytes. A bitset is next_docno / 8 bytes whatever the
 * term (125 KB at 1,000,000 documents), so in the shared budget the terms of a wide mix of
 * queries pushed out the lists and packed segments every search reads, which were then read
 * from PostgreSQL again (issue 23: the 1,000,000-document mix went from 190 to 577 ms p99).
 */
export const TERM_BITS_SHARE = 1 / 8;

/**
 * How many keys the admission record holds: a key's union is made on its second sighting
 * within the last this-many first sightings (the record is emptied when it fills), so a key
 * searched once never takes a bitset's bytes.
 */
export const TERM_BITS_SIGHTINGS = 16_384;

/**
 * The in-process cache of the bitmap index, bounded in bytes (least recently used goes first;
 * term bitsets in a share of their own, TERM_BITS_SHARE):
 * posting lists by (segment, kind, term), packed segments by segment, a row segment's category
 * lists by segment, prefix=1's term dictionaries (packed segments) and prefix lists (row
 * segments) by segment, deleted bitmaps by (collection, epoch, chunk, version), collection
 * views by (collection, epoch), term bitsets by (collection, epoch, key: term-bitsets.ts, the
 * one entry that stays valid as segments are folded and merged), pending rows (their term Sets) by row id, and the row ids a
 * collection's last snapshot had pending. Segments and pending rows never change and every
 * other key carries the version it was read at, so an entry is never stale: a change made by
 * any instance shows up as a new key in the next search's snapshot (that is the cross-instance
 * invalidation), and old keys age out.
 */
export interface IndexCache {
  /** bytes held now */
  readonly bytes: number;
  posting(segmentId: string, kind: string, term: string): Buffer | undefined;
  setPosting(segmentId: string, kind: string, term: string, data: Buffer | null): void;
  packed(segmentId: string): PackedSegment | undefined;
  setPacked(segmentId: string, packed: PackedSegment): void;
  categoryLists(segmentId: string): CategoryLists | undefined;
  setCategoryLists(segmentId: string, lists: CategoryLists): void;
  /** a packed segment's sorted terms (prefix=1; built on the first prefix search of it) */
  termDictionary(segmentId: string): PackedTermDictionary | undefined;
  setTermDictionary(segmentId: string, dictionary: PackedTermDictionary): void;
  /** a row segment's lists of one kind whose terms start with `prefix` (prefix=1) */
  prefixRows(segmentId: string, kind: string, prefix: string): PrefixRows | undefined;
  setPrefixRows(segmentId: string, kind: string, prefix: string, rows: PrefixRows): void;
  deleted(
    collectionId: string,
    epoch: string,
    chunk: number,
    version: number,
  ): Uint32Array | undefined;
  setDeleted(
    collectionId: string,
    epoch: string,
    chunk: number,
    version: number,
    bits: Uint32Array,
  ): void;
  /** a pending row read before (search_pending.row_id: a row never changes) */
  pendingRow(rowId: number): PendingRow | undefined;
  setPendingRow(row: PendingRow): void;
  /**
   * the pending row ids of one of the collection's latest snapshots: the rows a search says it
   * holds (a hint: a row it does not list is read whole, whatever this says)
   */
  pendingRowIds(collectionId: string): Float64Array | undefined;
  setPendingRowIds(collectionId: string, rowIds: Float64Array): void;
  /** a key's union of lists over a collection's numbers (term-bitsets.ts termBitsKey) */
  termBits(key: string): TermBits | undefined;
  setTermBits(key: string, entry: TermBits): void;
  /**
   * records that a key's union was wanted and not cached; true when it was wanted before
   * (admission on the second sighting: TERM_BITS_SIGHTINGS)
   */
  sightTermBits(key: string): boolean;
  view(collectionId: string, epoch: string): CollectionView | undefined;
  /** (re)stores a view, also after it grew (its size is counted again) */
  setView(view: CollectionView): void;
}

export function createIndexCache(maxBytes: number): IndexCache {
  const bitsBytes = Math.max(1, Math.floor(maxBytes * TERM_BITS_SHARE));
  const lru = new LRUCache<string, Entry>({
    maxSize: Math.max(1, maxBytes - bitsBytes),
    sizeCalculation: (v) => Math.max(1, 'bytes' in v ? v.bytes : v.byteLength + 48),
  });
  const bitsLru = new LRUCache<string, TermBits>({
    maxSize: bitsBytes,
    sizeCalculation: (v) => v.bytes,
  });
  const sighted = new Set<string>();
  return {
    get bytes() {
      return lru.calculatedSize + bitsLru.calculatedSize;
    },
    posting: (segmentId, kind, term) =>
      lru.get(`p${segmentId}:${kind}${term}`) as Buffer | undefined,
    setPosting(segmentId, kind, term, data) {
      lru.set(`p${segmentId}:${kind}${term}`, data ?? ABSENT);
    },
    packed: (segmentId) => lru.get(`s${segmentId}`) as PackedSegment | undefined,
    setPacked(segmentId, packed) {
      lru.set(`s${segmentId}`, packed);
    },
    categoryLists: (segmentId) => lru.get(`k${segmentId}`) as CategoryLists | undefined,
    setCategoryLists(segmentId, lists) {
      lru.set(`k${segmentId}`, lists);
    },
    termDictionary: (segmentId) => lru.get(`x${segmentId}`) as PackedTermDictionary | undefined,
    setTermDictionary(segmentId, dictionary) {
      lru.set(`x${segmentId}`, dictionary);
    },
    prefixRows: (segmentId, kind, prefix) =>
      lru.get(`r${segmentId}:${kind}${prefix}`) as PrefixRows | undefined,
    setPrefixRows(segmentId, kind, prefix, rows) {
      lru.set(`r${segmentId}:${kind}${prefix}`, rows);
    },
    deleted: (collectionId, epoch, chunk, version) =>
      lru.get(`d${collectionId}:${epoch}:${chunk}:${version}`) as Uint32Array | undefined,
    setDeleted(collectionId, epoch, chunk, version, bits) {
      lru.set(`d${collectionId}:${epoch}:${chunk}:${version}`, bits);
    },
    pendingRow: (rowId) => lru.get(`q${rowId}`) as PendingRow | undefined,
    setPendingRow(row) {
      lru.set(`q${row.rowId}`, row);
    },
    pendingRowIds: (collectionId) => lru.get(`Q${collectionId}`) as Float64Array | undefined,
    setPendingRowIds(collectionId, rowIds) {
      lru.set(`Q${collectionId}`, rowIds);
    },
    termBits: (key) => bitsLru.get(key),
    setTermBits(key, entry) {
      bitsLru.set(key, entry);
    },
    sightTermBits(key) {
      if (sighted.delete(key)) return true;
      if (sighted.size >= TERM_BITS_SIGHTINGS) sighted.clear();
      sighted.add(key);
      return false;
    },
    view: (collectionId, epoch) =>
      lru.get(`v${collectionId}:${epoch}`) as CollectionView | undefined,
    setView(view) {
      lru.set(`v${view.collectionId}:${view.epoch}`, view);
    },
  };
}
