import type { Bitset } from './bitset';
import type { PackedSegment } from './packed-segment';
import { orPostingsInto } from './postings-codec';
import type { PostingKind } from '../layout';

/**
 * The term dictionary of a packed segment for prefix=1 (search-as-you-type): packed segments
 * store their entries in no order (an open-addressing hash finds one term), so the word and
 * title terms are sorted once (read/term-dictionary.ts builds this on a segment's first prefix
 * search and caches it) and a prefix is then a binary-search range, O(log n + matches). Terms
 * are compared as JavaScript strings (UTF-16 order): whatever the order, the terms that start
 * with a prefix are adjacent in it.
 */

/**
 * A packed segment's word ('w') and title ('t') terms, sorted, with their entries' starts. It
 * holds its segment (the lists are read from it), so its size counts the segment too: the
 * cache may let go of the segment's own entry first.
 */
export class PackedTermDictionary {
  readonly bytes: number;
  private readonly byKind = new Map<string, { terms: string[]; starts: Int32Array }>();

  constructor(readonly segment: PackedSegment) {
    let bytes = 128 + segment.bytes;
    for (const kind of ['w', 't'] as const) {
      const terms: string[] = [];
      const startOf = new Map<string, number>();
      segment.eachTerm(kind.charCodeAt(0), (term, at) => {
        terms.push(term);
        startOf.set(term, at);
      });
      // UTF-16 order (whatever the order, the terms that start with a prefix are adjacent):
      // the default sort's own, without a comparator called per pair (half the time of one,
      // measured with 30,000 terms); a term is in a kind's entries once
      terms.sort();
      const starts = new Int32Array(terms.length);
      for (let i = 0; i < terms.length; i++) starts[i] = startOf.get(terms[i]!)!;
      for (const t of terms) bytes += 2 * t.length + 40;
      bytes += starts.byteLength;
      this.byKind.set(kind, { terms, starts });
    }
    this.bytes = bytes;
  }

  /** The terms of this kind that start with `prefix`, in order (binary search, then a walk). */
  termsWith(kind: PostingKind, prefix: string): string[] {
    const { terms } = this.byKind.get(kind) ?? { terms: [] };
    const [lo, hi] = this.range(kind, prefix);
    return terms.slice(lo, hi);
  }

  /** ORs the lists of this kind whose term starts with `prefix` into bits; false when none. */
  orInto(kind: PostingKind, prefix: string, firstDocno: number, bits: Bitset): boolean {
    const { starts } = this.byKind.get(kind) ?? { starts: new Int32Array(0) };
    const [lo, hi] = this.range(kind, prefix);
    for (let i = lo; i < hi; i++) orPostingsInto(this.segment.listAt(starts[i]!), firstDocno, bits);
    return hi > lo;
  }

  /** The bytes of the lists of this kind whose term starts with `prefix`. */
  bytesWith(kind: PostingKind, prefix: string): number {
    const { starts } = this.byKind.get(kind) ?? { starts: new Int32Array(0) };
    const [lo, hi] = this.range(kind, prefix);
    let bytes = 0;
    for (let i = lo; i < hi; i++) bytes += this.segment.listAt(starts[i]!).byteLength;
    return bytes;
  }

  /** [lo, hi): the positions of the terms of this kind that start with `prefix`. */
  private range(kind: PostingKind, prefix: string): [number, number] {
    const terms = this.byKind.get(kind)?.terms ?? [];
    let lo = 0;
    let hi = terms.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (terms[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    let end = lo;
    hi = terms.length;
    // the terms from lo on that start with prefix come first: find where they end
    while (end < hi) {
      const mid = (end + hi) >>> 1;
      if (terms[mid]!.startsWith(prefix)) end = mid + 1;
      else hi = mid;
    }
    return [lo, end];
  }
}
