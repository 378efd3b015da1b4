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

/** Segments of at most this many documents are "level 0"; each level is MERGE_FACTOR× larger. */
export const LEVEL_0_DOCS = 512;
export const MERGE_FACTOR = 8;
/** merges never make a segment larger than this (bounds a merge's memory and time) */
export const MAX_SEGMENT_DOCS = 131_072;

export function levelOf(docCount: number): number {
  return docCount <= LEVEL_0_DOCS
    ? 0
    : Math.ceil(Math.log(docCount / LEVEL_0_DOCS) / Math.log(MERGE_FACTOR));
}

/**
 * Which adjacent segments to merge next (indexes into `segments`, which are in number order):
 * the first run of MERGE_FACTOR neighbours of one level whose sum stays within
 * MAX_SEGMENT_DOCS. Like a counter in base MERGE_FACTOR: a collection of n documents keeps
 * about MERGE_FACTOR × log(n) segments. Null when none.
 */
export function pickMerge(segments: MergePart[]): [number, number] | null {
  for (let i = 0; i + MERGE_FACTOR <= segments.length; i++) {
    const level = levelOf(segments[i]!.docCount);
    let total = 0;
    let j = i;
    for (; j < i + MERGE_FACTOR; j++) {
      if (levelOf(segments[j]!.docCount) !== level) break;
      total += segments[j]!.docCount;
    }
    if (j === i + MERGE_FACTOR && total <= MAX_SEGMENT_DOCS) return [i, j];
  }
  return null;
}
