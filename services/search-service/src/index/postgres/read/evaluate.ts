import { andNotInto, cardinality, hasBit, setBitsArray, type Bitset } from '../format/bitset';
import { NEW_BITSETS, type BitsetMaker } from '../format/bitset-pool';
import type { CollectionView } from './collection-view';

/** A pending (not yet folded) document that matches the query. */
export interface TailMatch {
  docId: number;
  regdate: number;
  /** its relevance tier: an index into Evaluation.tiers, or tiers.length for the rest */
  tier: number;
}

export interface Evaluation {
  /** folded matches after every filter but the dates (deleted documents removed) */
  matches: Bitset;
  /**
   * relevance (sort 0) only: disjoint subsets of the matches, best first (every query term in
   * the title; with derived forms, see bitmap-search.ts); the other matches rank after them
   */
  tiers: Bitset[];
  view: CollectionView;
  tail: TailMatch[];
  sort: 0 | 1;
  start: number;
  len: number;
  from: number | null;
  to: number | null;
  /** where the rest of the matches is made (a search's loan, bitset-pool.ts); new by default */
  bits?: BitsetMaker;
}

/** A set at most this large is sorted; a larger one is read off the view's order. */
const SORT_AT_MOST = 2048;

interface Ranked {
  docId: number;
  regdate: number;
}

const byResultOrder = (a: Ranked, b: Ranked) => b.regdate - a.regdate || b.docId - a.docId;

/**
 * The exact number of matches and the documents.id of one page, in result order: relevance
 * (sort 0) puts the documents of the first tier first, then the next, the other matches last;
 * inside a tier, and for sort 1, newest score_regdate first, then the higher documents.id.
 * Folded matches and the pending tail are ranked together. The cost follows the page, not the
 * number of matches: counts are popcounts, a page is read off the view's order until it is full.
 */
export function evaluate(e: Evaluation): { numfound: number; docIds: string[] } {
  const wanted = e.start + e.len;
  const tiers = e.sort === 0 ? e.tiers : [];
  const folded =
    e.from !== null || e.to !== null
      ? inDateRange(e, tiers, wanted)
      : withoutDates(e, tiers, wanted);
  const page: Ranked[] = [];
  folded.tiers.forEach((ranked, tier) => {
    const pending = e.tail.filter((t) => Math.min(t.tier, tiers.length) === tier || e.sort === 1);
    pending.sort(byResultOrder);
    if (page.length < wanted) page.push(...mergeRanked(ranked, pending, wanted - page.length));
  });
  return {
    numfound: folded.count + e.tail.length,
    docIds: page.slice(e.start, wanted).map((r) => String(r.docId)),
  };
}

interface FoldedPage {
  count: number;
  /** per tier, then the other matches: the first `wanted` matches of each in order */
  tiers: Ranked[][];
}

function withoutDates(e: Evaluation, tiers: Bitset[], wanted: number): FoldedPage {
  const count = cardinality(e.matches);
  if (tiers.length === 0) return { count, tiers: [first(e.view, e.matches, count, wanted)] };
  const out: Ranked[][] = [];
  let before = 0;
  for (const tier of tiers) {
    const size = cardinality(tier);
    out.push(before >= wanted ? [] : first(e.view, tier, size, wanted));
    before += size;
  }
  if (before >= wanted || before === count) out.push([]);
  else {
    const rest = (e.bits ?? NEW_BITSETS).copy(e.matches);
    for (const tier of tiers) andNotInto(rest, tier);
    out.push(first(e.view, rest, count - before, wanted));
  }
  return { count, tiers: out };
}

/** The first `wanted` members of `set` (of `size` members) in result order. */
function first(view: CollectionView, set: Bitset, size: number, wanted: number): Ranked[] {
  if (size === 0) return [];
  if (size <= SORT_AT_MOST) {
    const ranks = inResultOrder(view, setBitsArray(set, size));
    const out: Ranked[] = [];
    for (let i = 0; i < ranks.length && i < wanted; i++)
      out.push(ranked(view, view.order[ranks[i]!]!));
    return out;
  }
  const out: Ranked[] = [];
  const order = view.order;
  for (let p = 0; p < view.size && out.length < wanted; p++) {
    const d = order[p]!;
    if (hasBit(set, d)) out.push(ranked(view, d));
  }
  return out;
}

/** The positions in result order of these document numbers, ascending (a numeric sort). */
function inResultOrder(view: CollectionView, docnos: Uint32Array): Uint32Array {
  for (let i = 0; i < docnos.length; i++) docnos[i] = view.rank[docnos[i]!]!;
  return docnos.sort();
}

/**
 * With date bounds. A set small enough is sorted and filtered. Otherwise the dates are a range
 * of positions of the view's order: a narrow range is walked once for the count and the page;
 * a wide one (most of the order, as an open `since` is) costs more to walk than what lies
 * outside it, so the count is the matches less those outside, and the page is read off the
 * range until every tier has `wanted` members. A match's tier is looked up only while its
 * tier still takes members.
 */
function inDateRange(e: Evaluation, tiers: Bitset[], wanted: number): FoldedPage {
  const view = e.view;
  const inRange = (d: number) =>
    (e.from === null || view.regdate[d]! >= e.from) && (e.to === null || view.regdate[d]! <= e.to);
  const tierOf = (d: number) => {
    let t = 0;
    while (t < tiers.length && !hasBit(tiers[t]!, d)) t++;
    return t;
  };
  const page: FoldedPage = { count: 0, tiers: [...tiers, e.matches].map(() => []) };
  const size = cardinality(e.matches);
  if (size <= SORT_AT_MOST) {
    for (const p of inResultOrder(view, setBitsArray(e.matches, size))) {
      const d = view.order[p]!;
      if (!inRange(d)) continue;
      page.count++;
      page.tiers[tierOf(d)]!.push(ranked(view, d));
    }
    return page;
  }
  const [lo, hi] = view.positions(e.from, e.to);
  const order = view.order;
  const matches = e.matches;
  /** tiers (the rest of the matches last) that still lack `wanted` members */
  let open = page.tiers.length;
  const take = (d: number) => {
    const tier = page.tiers[tierOf(d)]!;
    if (tier.length < wanted && tier.push(ranked(view, d)) === wanted) open--;
  };
  if (view.size - (hi - lo) >= hi - lo) {
    // a narrow range: count and page in one walk over it
    for (let p = lo; p < hi; p++) {
      const d = order[p]!;
      if (!hasBit(matches, d)) continue;
      page.count++;
      if (open > 0) take(d);
    }
    return page;
  }
  // a wide range (an open one: `since`): count the matches outside it, fewer positions, and
  // read the page off the range only until every tier has its `wanted`
  let outside = 0;
  for (let p = 0; p < lo; p++) if (hasBit(matches, order[p]!)) outside++;
  for (let p = hi; p < view.size; p++) if (hasBit(matches, order[p]!)) outside++;
  page.count = size - outside;
  for (let p = lo; p < hi && open > 0; p++) {
    const d = order[p]!;
    if (hasBit(matches, d)) take(d);
  }
  return page;
}

function ranked(view: CollectionView, d: number): Ranked {
  return { docId: view.docId[d]!, regdate: view.regdate[d]! };
}

/** The first `wanted` of two lists already in result order, in result order. */
function mergeRanked(a: Ranked[], b: Ranked[], wanted: number): Ranked[] {
  if (b.length === 0) return a.slice(0, wanted);
  const out: Ranked[] = [];
  let i = 0;
  let j = 0;
  while (out.length < wanted && (i < a.length || j < b.length)) {
    if (j >= b.length || (i < a.length && byResultOrder(a[i]!, b[j]!) <= 0)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}
