import { isEmpty, type Bitset } from '../format/bitset';
import { countPostingsIn } from '../format/postings-codec';
import type { CollectionView } from './collection-view';
import type { Snapshot } from './index-store';
import type { PostingLists } from './snapshot-reader';

/**
 * facet=categories on the bitmap index: the exact number of matches per category, over every
 * match after q, deletions, ex_ca and the dates but before ca (bitmap-search.ts takes them
 * between ex_ca and ca), folded matches and the pending tail alike, as numfound is.
 *
 * Cost: one pass over each category list the collection has (a test per listed document, or an
 * AND and popcount per word of a bitmap list) against the matches, and no bitset: the counts
 * are taken against the matches themselves, so a search keeps its bound of four bitsets. A
 * collection of thousands of categories costs what its category lists hold, whatever the
 * search; a category no match has is not in the answer.
 */

/** Clears from `matches` the folded documents whose regdate lies outside [from, to]. */
export function keepDateRange(
  matches: Bitset,
  view: CollectionView,
  from: number | null,
  to: number | null,
): void {
  if (from === null && to === null) return;
  for (let w = 0; w < matches.length; w++) {
    let v = matches[w]!;
    while (v !== 0) {
      const low = v & -v;
      v ^= low;
      const regdate = view.regdate[(w << 5) + (31 - Math.clz32(low))]!;
      if ((from !== null && regdate < from) || (to !== null && regdate > to)) {
        matches[w]! &= ~low;
      }
    }
  }
}

/**
 * The number of documents per category among the folded `matches` (the snapshot's category
 * lists, read with allCategories; null when nothing is folded) and the pending rows that match
 * (a document counts once in each of its categories).
 */
export function countCategories(
  lists: PostingLists | null,
  matches: Bitset,
  pending: Snapshot['tail'],
): Map<number, number> {
  const counts = new Map<number, number>();
  const add = (category: number, n: number) =>
    counts.set(category, (counts.get(category) ?? 0) + n);
  if (lists && !isEmpty(matches)) {
    lists.eachCategoryList((category, list, firstDocno) => {
      const n = countPostingsIn(list, firstDocno, matches);
      if (n > 0) add(category, n);
    });
  }
  for (const [, , , categories] of pending) for (const c of new Set(categories)) add(c, 1);
  return counts;
}
