import type pg from 'pg';
import { newBitset, setBit, type Bitset } from './bitset';
import { CollectionView } from './collection-view';
import { DELETED_CHUNK } from './fold-store';
import { ABSENT, type IndexCache } from './index-cache';
import {
  readDeleted,
  readPacked,
  readPostings,
  readSegmentDocs,
  readSnapshot,
  type PostingKind,
  type Snapshot,
  type SnapshotFilter,
} from './index-store';
import { PackedSegment, packedKey } from './packed-segment';
import { orPostingsInto } from './postings-codec';

/** The snapshot changed under a search (a merge or fold in between): read it again. */
export class SnapshotMoved extends Error {}

export interface PostingKey {
  kind: PostingKind;
  term: string;
}

/**
 * What a search reads of one collection: its snapshot, then the snapshot's result order,
 * posting lists and deleted numbers, each from the in-process cache or else Postgres. A part
 * that is gone by the time it is read (merged, retired, a newer deleted version) throws
 * SnapshotMoved: the search starts again on a fresh snapshot.
 */
export interface SnapshotReader {
  snapshot(collectionId: string, filter: SnapshotFilter): Promise<Snapshot>;
  /** The collection's view, extended to every number of the snapshot. */
  view(collectionId: string, snap: Snapshot): Promise<CollectionView>;
  /** Each key's posting lists over the snapshot's segments, OR-ed into one bitset per key. */
  postings(snap: Snapshot, keys: PostingKey[]): Promise<Map<string, Bitset>>;
  /** The deleted numbers of the snapshot: its deleted-chunk versions plus its tombstones. */
  deleted(collectionId: string, snap: Snapshot): Promise<Bitset>;
}

export function createSnapshotReader(pool: pg.Pool, cache: IndexCache): SnapshotReader {
  /** view extensions in progress, so concurrent searches extend a view once */
  const extending = new Map<string, Promise<CollectionView>>();

  async function extend(view: CollectionView, snap: Snapshot): Promise<CollectionView> {
    const needed = snap.segments.filter((s) => s.firstDocno + s.docCount > view.size);
    const docs = await readSegmentDocs(
      pool,
      needed.map((s) => s.id),
    );
    if (docs.length !== needed.length) throw new SnapshotMoved();
    for (const s of docs) view.append(s.firstDocno, s.docIds, s.regdates);
    if (view.size < snap.nextDocno) throw new SnapshotMoved();
    cache.setView(view);
    return view;
  }

  return {
    snapshot: (collectionId, filter) => readSnapshot(pool, collectionId, filter),

    async view(collectionId, snap) {
      const epoch = snap.epoch!;
      const key = `${collectionId}:${epoch}`;
      for (;;) {
        const view = cache.view(collectionId, epoch) ?? new CollectionView(collectionId, epoch);
        if (view.size >= snap.nextDocno) return view;
        const running = extending.get(key);
        if (running) {
          await running;
          continue;
        }
        const extension = extend(view, snap).finally(() => extending.delete(key));
        extending.set(key, extension);
        return extension;
      }
    },

    async postings(snap, keys) {
      const packed = new Map<string, PackedSegment>();
      const missingPacked: string[] = [];
      const missingSegments = new Set<string>();
      const missingKeys = new Map<string, PostingKey>();
      for (const s of snap.segments) {
        if (s.packed) {
          const cached = cache.packed(s.id);
          if (cached) packed.set(s.id, cached);
          else missingPacked.push(s.id);
          continue;
        }
        for (const k of keys) {
          if (cache.posting(s.id, k.kind, k.term) === undefined) {
            missingSegments.add(s.id);
            missingKeys.set(k.kind + k.term, k);
          }
        }
      }
      const [packedRows, rows] = await Promise.all([
        missingPacked.length ? readPacked(pool, missingPacked) : [],
        missingSegments.size
          ? readPostings(pool, [...missingSegments], [...missingKeys.values()])
          : [],
      ]);
      if (packedRows.length !== missingPacked.length) throw new SnapshotMoved();
      for (const r of packedRows) {
        const segment = new PackedSegment(r.packed);
        cache.setPacked(r.id, segment);
        packed.set(r.id, segment);
      }
      if (new Set(rows.map((r) => r.segmentId)).size !== missingSegments.size) {
        throw new SnapshotMoved();
      }
      const fetched = new Map<string, Buffer | null>();
      for (const r of rows) {
        cache.setPosting(r.segmentId, r.kind, r.term, r.data);
        fetched.set(`${r.segmentId}:${r.kind}${r.term}`, r.data);
      }
      const out = new Map<string, Bitset>();
      for (const k of keys) {
        const key = k.kind + k.term;
        const inPacked = packedKey(k.kind, k.term);
        const bits = newBitset(snap.nextDocno);
        for (const s of snap.segments) {
          let data: Buffer | null | undefined;
          if (s.packed) data = packed.get(s.id)!.get(inPacked) ?? null;
          else {
            data = fetched.get(`${s.id}:${key}`);
            if (data === undefined) data = cache.posting(s.id, k.kind, k.term);
            if (data === undefined) throw new SnapshotMoved(); // evicted in between: read again
          }
          if (data && data !== ABSENT) orPostingsInto(data, s.firstDocno, bits);
        }
        out.set(key, bits);
      }
      return out;
    },

    async deleted(collectionId, snap) {
      const epoch = snap.epoch!;
      const bits = newBitset(snap.nextDocno);
      const missing = snap.deleted.filter(
        ([chunk, version]) => !cache.deleted(collectionId, epoch, chunk, version),
      );
      if (missing.length) {
        const rows = await readDeleted(
          pool,
          collectionId,
          missing.map(([chunk]) => chunk),
        );
        for (const r of rows) {
          const words = new Uint32Array(DELETED_CHUNK / 32);
          for (let i = 0; i < words.length; i++) words[i] = r.bits.readUInt32LE(4 * i);
          cache.setDeleted(collectionId, epoch, r.chunk, r.version, words);
        }
      }
      for (const [chunk, version] of snap.deleted) {
        const words = cache.deleted(collectionId, epoch, chunk, version);
        if (!words) throw new SnapshotMoved(); // a newer version was folded in between
        const base = (chunk * DELETED_CHUNK) >>> 5;
        for (let i = 0; i < words.length && base + i < bits.length; i++)
          bits[base + i]! |= words[i]!;
      }
      for (const docno of snap.tombstones) if (docno < snap.nextDocno) setBit(bits, docno);
      return bits;
    },
  };
}
