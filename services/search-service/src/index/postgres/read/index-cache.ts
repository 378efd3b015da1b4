import { LRUCache } from 'lru-cache';
import type { CollectionView } from './collection-view';
import type { PackedSegment } from '../format/packed-segment';

/** A posting list known to be absent from a segment (cached too: most terms are in few segments). */
export const ABSENT: Buffer = Buffer.alloc(0);

/** The category terms a row segment has posting lists for (segments never change). */
export interface CategoryTerms {
  readonly terms: ReadonlySet<string>;
  /** memory held, for the cache's size limit */
  readonly bytes: number;
}

/** A row segment's category terms as the cache keeps them. */
export function categoryTerms(terms: Iterable<string>): CategoryTerms {
  const set = new Set(terms);
  let bytes = 64;
  for (const t of set) bytes += 48 + 2 * t.length;
  return { terms: set, bytes };
}

type Entry = Buffer | Uint32Array | CollectionView | PackedSegment | CategoryTerms;

/**
 * The in-process cache of the bitmap index, bounded in bytes (least recently used goes first):
 * posting lists by (segment, kind, term), packed segments by segment, the category terms of a
 * row segment by segment, deleted bitmaps by (collection, epoch, chunk, version), and
 * collection views by (collection, epoch). Segments never change and every
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
  categoryTerms(segmentId: string): CategoryTerms | undefined;
  setCategoryTerms(segmentId: string, terms: CategoryTerms): void;
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
  view(collectionId: string, epoch: string): CollectionView | undefined;
  /** (re)stores a view, also after it grew (its size is counted again) */
  setView(view: CollectionView): void;
}

export function createIndexCache(maxBytes: number): IndexCache {
  const lru = new LRUCache<string, Entry>({
    maxSize: maxBytes,
    sizeCalculation: (v) => Math.max(1, 'bytes' in v ? v.bytes : v.byteLength + 48),
  });
  return {
    get bytes() {
      return lru.calculatedSize;
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
    categoryTerms: (segmentId) => lru.get(`k${segmentId}`) as CategoryTerms | undefined,
    setCategoryTerms(segmentId, terms) {
      lru.set(`k${segmentId}`, terms);
    },
    deleted: (collectionId, epoch, chunk, version) =>
      lru.get(`d${collectionId}:${epoch}:${chunk}:${version}`) as Uint32Array | undefined,
    setDeleted(collectionId, epoch, chunk, version, bits) {
      lru.set(`d${collectionId}:${epoch}:${chunk}:${version}`, bits);
    },
    view: (collectionId, epoch) =>
      lru.get(`v${collectionId}:${epoch}`) as CollectionView | undefined,
    setView(view) {
      lru.set(`v${view.collectionId}:${view.epoch}`, view);
    },
  };
}
