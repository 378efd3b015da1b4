import { decodeOffsets, encodePostings } from '../format/postings-codec';
import type { PostingKind, PostingList } from '../layout';

/** A pending document as the folder reads it (terms distinct, as the analyser gives them). */
export interface FoldInput {
  docId: string;
  regdate: number;
  categories: number[];
  titleTerms: string[];
  terms: string[];
}

/**
 * The posting lists of a new segment whose documents are `docs`, in order (document i has
 * number first + i, offset i): one list per word, title word and category.
 */
export function buildPostings(docs: FoldInput[]): PostingList[] {
  // a map per kind (no key string made per term), the lists in the order they were first met
  const made: Array<{ kind: PostingKind; term: string; offsets: number[] }> = [];
  const byKind = {
    w: new Map<string, number[]>(),
    t: new Map<string, number[]>(),
    c: new Map<string, number[]>(),
  };
  const add = (kind: PostingKind, term: string, offset: number) => {
    const lists: Map<string, number[]> = byKind[kind];
    const list = lists.get(term);
    if (list) {
      list.push(offset);
      return;
    }
    const offsets = [offset];
    lists.set(term, offsets);
    made.push({ kind, term, offsets });
  };
  docs.forEach((doc, i) => {
    for (const term of doc.terms) add('w', term, i);
    for (const term of doc.titleTerms) add('t', term, i);
    for (const category of new Set(doc.categories)) add('c', String(category), i);
  });
  return made.map(({ kind, term, offsets }) => ({
    kind,
    term,
    data: encodePostings(offsets, docs.length),
  }));
}

/** A segment taking part in a merge: where its numbers start, and how many it has. */
export interface MergePart {
  firstDocno: number;
  docCount: number;
}

/**
 * One term's posting lists of adjacent segments (`parts`, in number order; data null where a
 * segment lacks the term) as one list of the merged segment, leaving out deleted numbers.
 * Null when nothing is left.
 */
export function mergePostings(
  parts: MergePart[],
  data: Array<Buffer | null>,
  isDeleted: (docno: number) => boolean,
): Buffer | null {
  const first = parts[0]!.firstDocno;
  const length = parts.reduce((n, p) => n + p.docCount, 0);
  const offsets: number[] = [];
  parts.forEach((part, i) => {
    const list = data[i];
    if (!list) return;
    const shift = part.firstDocno - first;
    for (const offset of decodeOffsets(list)) {
      if (!isDeleted(part.firstDocno + offset)) offsets.push(shift + offset);
    }
  });
  return offsets.length ? encodePostings(offsets, length) : null;
}

export const MERGE_FACTOR = 8;
/** merges never make a segment larger than this (bounds a merge's memory and time) */
export const MAX_SEGMENT_DOCS = 131_072;

/**
 * Which adjacent segments to merge next (indexes into `segments`, which are in number order):
 * of the runs of MERGE_FACTOR neighbours whose sum stays within MAX_SEGMENT_DOCS and in which
 * no segment holds more than half of the run's documents, the one with the fewest documents.
 * Null when none.
 *  - Half: a merge at least doubles the segment of every document it rewrites, so a document
 *    is rewritten at most log2(MAX_SEGMENT_DOCS / its fold's size) times, and a large segment
 *    is not rewritten to take in a few small ones.
 *  - The fewest documents: the cheapest merge first, which is the newest, smallest segments.
 *  - Any sizes: the rule looks at the run's shares, not at levels of fixed sizes. Levels of
 *    512 × 8ⁿ documents, a run only of one level, let folds of 300–1,300 documents (a level
 *    boundary inside them) never line up eight alike: 61 segments after 100,000 adds, whose
 *    merges then ran for half a minute after the load while every search paid for them.
 * With one merge after each fold (the folder), a collection of up to 1,000,000 documents keeps
 * at most ~30 segments whatever its folds' sizes, each document rewritten 2–3 times (6 for
 * folds of a few documents): test/postgres-engine-parts.test.ts "merge policy" simulates it.
 */
export function pickMerge(segments: MergePart[]): [number, number] | null {
  let best: [number, number] | null = null;
  let bestTotal = Infinity;
  for (let i = 0; i + MERGE_FACTOR <= segments.length; i++) {
    let total = 0;
    let largest = 0;
    for (let j = i; j < i + MERGE_FACTOR; j++) {
      const n = segments[j]!.docCount;
      total += n;
      if (n > largest) largest = n;
    }
    if (total <= MAX_SEGMENT_DOCS && largest * 2 <= total && total < bestTotal) {
      best = [i, i + MERGE_FACTOR];
      bestTotal = total;
    }
  }
  return best;
}
