import type { Bitset } from '../format/bitset';
import type { IndexCache } from './index-cache';
import type { Snapshot } from './index-store';

/**
 * Term bitsets: the union of one key's posting lists over a collection's folded numbers (a
 * term of a kind, or every term of a kind that starts with a prefix), kept in the index cache,
 * so that a term searched again costs one word-wise OR instead of a walk of its list in every
 * segment. The walk was the largest single cost of a search's service thread (13 % of it at
 * 100,000 documents, 22 % at 300,000: issue 23's profiles), and the same terms come back.
 *
 * - Key: (collection, epoch, key). An entry holds the union over the segments of one snapshot,
 *   which cover the numbers [0, coveredTo) (engine invariant 2: live segments cover
 *   0 … next_docno − 1 without gap or overlap).
 * - Valid for every snapshot of the same epoch, later or earlier. Numbers are given once and
 *   never reused, and a merge replaces segments by one over the same range (invariants 2 and
 *   5), so the union over any snapshot differs from an entry's only by numbers deleted in
 *   between: a merge may leave their postings out, never put one in. Every search clears the
 *   deleted numbers from its matches after the lists (removeDeleted), exactly as for a list
 *   that still names a deleted number; no caller takes the union as the record of anything
 *   else (the counts of the plan, `count`, read the lists themselves).
 * - A later snapshot's segments that end after coveredTo (folded since) are walked as before;
 *   OR is idempotent, so a merged segment that straddles coveredTo is walked whole. An earlier
 *   snapshot (next_docno below coveredTo) takes the entry's bits below its next_docno only.
 * - Made only for lists worth it: their bytes at least a quarter of the bitset's (a rare
 *   term's few offsets cost less to walk than a whole-bitset OR), and made again, from the old
 *   entry and the new segments, once the numbers it lacks reach an eighth of those it covers.
 *   An entry is never changed once cached (a search may hold it); it takes next_docno / 8
 *   bytes (12.5 KB at 100,000 documents, 125 KB at 1,000,000) of the term bitsets' own share
 *   of the cache, least recently used first (index-cache.ts TERM_BITS_SHARE).
 * - Made on a key's second sighting (index-cache.ts TERM_BITS_SIGHTINGS): a key searched
 *   once is walked and costs no bitset.
 */

/** What an entry is made of: the snapshot's lists of one key. */
export interface UnionSource {
  /** ORs the lists of the snapshot's segments that end after `from` into bits; false: none */
  orFrom(from: number, bits: Bitset): boolean;
  /** the bytes of those lists (whether an entry pays) */
  bytesFrom(from: number): number;
}

/** The cache key of a posting key's union in a snapshot's collection and epoch. */
export function termBitsKey(snap: Pick<Snapshot, 'collectionId' | 'epoch'>, key: string): string {
  return `${snap.collectionId}:${snap.epoch}:${key}`;
}

const wordsFor = (numbers: number) => (numbers + 31) >>> 5;

/**
 * ORs the union of the key's lists over the snapshot into `bits` (sized for the snapshot's
 * next_docno); false when no segment has a list of it (bits untouched), as a walk would say.
 */
export function orUnionInto(
  cache: IndexCache,
  key: string,
  snap: Pick<Snapshot, 'nextDocno'>,
  source: UnionSource,
  bits: Bitset,
): boolean {
  const n = snap.nextDocno;
  const entry = cache.termBits(key);
  if (entry && entry.coveredTo >= n) {
    orBelow(bits, entry.bits, n);
    return entry.any;
  }
  if (entry) {
    const missing = n - entry.coveredTo;
    if (missing * 8 < entry.coveredTo) {
      orBelow(bits, entry.bits, n);
      return source.orFrom(entry.coveredTo, bits) || entry.any;
    }
    const made = new Uint32Array(wordsFor(n));
    made.set(entry.bits);
    const any = source.orFrom(entry.coveredTo, made) || entry.any;
    return keep(cache, key, made, n, any, bits);
  }
  if (source.bytesFrom(0) < wordsFor(n) || !cache.sightTermBits(key)) {
    return source.orFrom(0, bits);
  }
  const made = new Uint32Array(wordsFor(n));
  return keep(cache, key, made, n, source.orFrom(0, made), bits);
}

function keep(
  cache: IndexCache,
  key: string,
  made: Uint32Array,
  coveredTo: number,
  any: boolean,
  bits: Bitset,
): boolean {
  cache.setTermBits(key, { bits: made, coveredTo, any, bytes: made.byteLength + 96 });
  orBelow(bits, made, coveredTo);
  return any;
}

/** bits |= from, for the numbers below n only (from may cover more: a later snapshot's). */
function orBelow(bits: Bitset, from: Uint32Array, n: number): void {
  const full = Math.min(n >>> 5, from.length, bits.length);
  for (let i = 0; i < full; i++) bits[i]! |= from[i]!;
  const rest = n & 31;
  if (rest !== 0 && full < from.length && full < bits.length)
    bits[full]! |= from[full]! & ((1 << rest) - 1);
}
