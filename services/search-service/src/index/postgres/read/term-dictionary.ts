import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Queryable } from '@hub/service-kit';
import type { Bitset } from '../format/bitset';
import { PackedTermDictionary } from '../format/packed-term-dictionary';
import { orPostingsInto } from '../format/postings-codec';
import type { PostingKind } from '../layout';
import { prefixUpperBound } from '../../prefix-expansion';
import type { IndexCache, PrefixRows } from './index-cache';
import { readPrefixPostings, type Snapshot } from './index-store';
import type { PackedSegments } from './packed-segments';
import { orUnionInto, termBitsKey } from './term-bitsets';

/**
 * The term dictionary of prefix=1 (search-as-you-type): every list of a snapshot whose term
 * starts with a prefix (prefix-expansion.ts), per segment, without scanning a segment's terms.
 *
 * - Packed segments store their entries in no order (an open-addressing hash finds one term).
 *   The first prefix search of a segment sorts the word and title terms once (yielding to the
 *   event loop between two segments)
 *   (format/packed-term-dictionary.ts: the terms and where each entry starts, per kind) and
 *   caches that next to the segment, so stored segments stay as they are (no migration) and a
 *   search without prefix never pays for it. A prefix is then a binary-search range.
 * - Row segments keep one search_postings row per term, keyed (segment_id, kind, term COLLATE
 *   "C"): a prefix is one range of that primary key, [prefix, prefixUpperBound(prefix))
 *   (readPrefixPostings; verified to be an Index Scan by test/prefix-dictionary.test.ts).
 *   The lists found are cached per (segment, kind, prefix): segments never change.
 * - The pending tail is matched by search_snapshot in SQL with the same range.
 * - The union of a prefix's lists over the collection is a term bitset (term-bitsets.ts), so
 *   a prefix typed again costs one OR, whatever the number of its terms.
 */

/** A row segment's lists of one prefix as one cache entry, with the memory it holds. */
function prefixRows(lists: Buffer[], termChars: number): PrefixRows {
  let bytes = 64;
  for (const l of lists) bytes += l.byteLength + 2 * termChars + 64;
  return { lists, bytes };
}

/** Every list of a snapshot whose term starts with one prefix, held for a search. */
export interface PrefixLists {
  /** ORs the lists of this kind whose term starts with the prefix into bits; false when none */
  orInto(kind: PostingKind, bits: Bitset): boolean;
}

/**
 * The lists whose term starts with `prefix`, of these kinds, over the snapshot's segments:
 * from the cache, else Postgres (one query for the packed segments the cache lacks, one for
 * the row segments' ranges). Null when a segment of the snapshot is gone (the reader then
 * throws SnapshotMoved, as postings does).
 */
export async function readPrefixLists(
  db: Queryable,
  cache: IndexCache,
  packedSegments: PackedSegments,
  snap: Snapshot,
  prefix: string,
  kinds: PostingKind[],
): Promise<PrefixLists | null> {
  const dictionaries = new Map<string, PackedTermDictionary>();
  const rowLists = new Map<string, Buffer[]>();
  const missingPacked: string[] = [];
  const missingRows = new Set<string>();
  for (const s of snap.segments) {
    if (s.packed) {
      const dictionary = cache.termDictionary(s.id);
      if (dictionary) dictionaries.set(s.id, dictionary);
      else missingPacked.push(s.id);
      continue;
    }
    for (const kind of kinds) {
      const cached = cache.prefixRows(s.id, kind, prefix);
      if (cached) rowLists.set(`${s.id}:${kind}`, [...cached.lists]);
      else missingRows.add(s.id);
    }
  }
  // the packed segments to sort, held for the search (the cache may let go of them)
  const [segments, found] = await Promise.all([
    missingPacked.length ? packedSegments.load(db, missingPacked) : new Map<string, never>(),
    missingRows.size
      ? readPrefixPostings(
          db,
          [...missingRows],
          kinds.includes('t'),
          prefix,
          prefixUpperBound(prefix),
        )
      : { segmentIds: [], rows: [] },
  ]);
  if (!segments) return null;
  if (found.segmentIds.length !== missingRows.size) return null;
  for (const [i, id] of missingPacked.entries()) {
    // each sort takes a few ms: right after a bulk load, one search sorting two dozen new
    // segments in one go held the service thread for ~125 ms; between two, others go on
    if (i > 0) await yieldToEventLoop();
    // a prefix search that came meanwhile may have sorted it: each is sorted once (right
    // after a load, the prefix searches that came together each sorted every new segment)
    let dictionary = cache.termDictionary(id);
    if (!dictionary) {
      dictionary = new PackedTermDictionary(segments.get(id)!);
      cache.setTermDictionary(id, dictionary);
    }
    dictionaries.set(id, dictionary);
  }
  const fresh = new Map<string, Buffer[]>();
  for (const id of missingRows) for (const kind of kinds) fresh.set(`${id}:${kind}`, []);
  for (const r of found.rows) {
    if (r.term.startsWith(prefix)) fresh.get(`${r.segmentId}:${r.kind}`)!.push(r.data);
  }
  const termChars = prefix.length + 8;
  for (const [key, lists] of fresh) {
    const [id, kind] = key.split(':') as [string, PostingKind];
    cache.setPrefixRows(id, kind, prefix, prefixRows(lists, termChars));
    rowLists.set(key, lists);
  }
  /** each list of this kind whose term starts with the prefix, in segments ending after `from` */
  const eachList = (
    kind: PostingKind,
    from: number,
    packed: (d: PackedTermDictionary, firstDocno: number) => void,
    row: (list: Buffer, firstDocno: number) => void,
  ) => {
    for (const s of snap.segments) {
      if (s.firstDocno + s.docCount <= from) continue;
      if (s.packed) packed(dictionaries.get(s.id)!, s.firstDocno);
      else for (const list of rowLists.get(`${s.id}:${kind}`) ?? []) row(list, s.firstDocno);
    }
  };
  return {
    orInto(kind, bits) {
      return orUnionInto(
        cache,
        termBitsKey(snap, `P${kind}${prefix}`),
        snap,
        {
          orFrom(from, into) {
            let any = false;
            eachList(
              kind,
              from,
              (d, firstDocno) => {
                if (d.orInto(kind, prefix, firstDocno, into)) any = true;
              },
              (list, firstDocno) => {
                orPostingsInto(list, firstDocno, into);
                any = true;
              },
            );
            return any;
          },
          bytesFrom(from) {
            let bytes = 0;
            eachList(
              kind,
              from,
              (d) => (bytes += d.bytesWith(kind, prefix)),
              (list) => (bytes += list.byteLength),
            );
            return bytes;
          },
        },
        bits,
      );
    },
  };
}
