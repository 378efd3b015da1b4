import type { Queryable } from '@hub/service-kit';
import { prefixQuery, prefixUpperBound } from '../../prefix-expansion';
import { noMatches, type SearchHits, type SearchQuery } from '../../search-index';
import { andInto, andNotInto, copyBitset, isEmpty, newBitset, type Bitset } from '../format/bitset';
import { CollectionView } from './collection-view';
import { evaluate, type TailMatch } from './evaluate';
import { countCategories, keepDateRange } from './facet-counts';
import type { PostingKind } from '../layout';
import type { Snapshot } from './index-store';
import type { PrefixLists } from './term-dictionary';
import { SnapshotMoved, type PostingKey, type SnapshotReader } from './snapshot-reader';

/**
 * Category lists longer than this are not sent to the snapshot's SQL (whose array overlap
 * compares every pair): the pending tail is then filtered here, with a Set.
 */
const TAIL_SQL_CATEGORIES = 64;

/**
 * The snapshot's tail rows that pass ca (any of) and ex_ca (none of) (the SQL applied short
 * lists already; applying them again changes nothing).
 */
function tailRows(
  rows: Snapshot['tail'],
  ca: number[] | null,
  exCa: number[] | null,
): Snapshot['tail'] {
  const any = ca && new Set(ca);
  const none = exCa && new Set(exCa);
  return rows.filter(
    ([, , , categories]) =>
      (!any || categories.some((c) => any.has(c))) &&
      !(none && categories.some((c) => none.has(c))),
  );
}

/** The pending matches that pass ca (any of) and ex_ca (none of), from the snapshot's tail rows. */
export function tailMatches(
  rows: Snapshot['tail'],
  ca: number[] | null,
  exCa: number[] | null,
): TailMatch[] {
  return tailRows(rows, ca, exCa).map(([docId, regdate, inTitle]) => ({
    docId,
    regdate: Number(regdate),
    inTitle,
  }));
}

/**
 * A search over one snapshot of the collection: the bitsets of its words, categories and
 * deleted numbers combined with AND / AND NOT, the pending tail matched in SQL, then counts and
 * the page from evaluate(). Read on the pool first (no connection held between reads: most
 * snapshots never move); when the snapshot moved (SnapshotMoved), read once more in the
 * reader's `steady` transaction, where it cannot move: a fold or a merge never fails a search.
 *
 * Bounded work whatever the parameters: each distinct term and category is looked up once (a
 * repeated one counts once), a category or term no segment has costs a hash probe per segment
 * and no bitset, and a search holds at most four bitsets of next_docno / 8 bytes at once
 * (matches, one scratch set the lists of a term or of all listed categories are OR-ed into,
 * the title matches, and evaluate's rest of the matches): lists are AND-ed / OR-ed into these
 * as they are read, and the words stop at the first that leaves no match. With
 * facet=categories the counts per category are taken between ex_ca and ca (facet-counts.ts),
 * against the matches themselves: no more bitsets.
 */
export async function searchBitmaps(
  reader: SnapshotReader,
  query: SearchQuery,
): Promise<SearchHits> {
  const { terms, prefix } = prefixQuery(query.q, query.prefix === true);
  if (terms.length === 0 && prefix === null) return noMatches(query);
  const ca = query.ca === null ? null : [...new Set(query.ca)];
  const exCa = query.exCa === null ? null : [...new Set(query.exCa)];
  const once = (db: Queryable) => searchOnce(reader, db, query, terms, prefix, ca, exCa);
  try {
    return await reader.pooled(once);
  } catch (e) {
    if (!(e instanceof SnapshotMoved)) throw e;
  }
  return reader.steady(once);
}

async function searchOnce(
  reader: SnapshotReader,
  db: Queryable,
  query: SearchQuery,
  terms: string[],
  prefix: string | null,
  ca: number[] | null,
  exCa: number[] | null,
): Promise<SearchHits> {
  const facets = query.facet === 'categories';
  const snap = await reader.snapshot(db, query.collectionId, {
    terms,
    // the facet counts ignore ca: the tail is then filtered by ca here
    ca: !facets && ca && ca.length <= TAIL_SQL_CATEGORIES ? ca : null,
    exCa: exCa && exCa.length <= TAIL_SQL_CATEGORIES ? exCa : null,
    from: query.startdate,
    to: query.enddate,
    prefix: prefix === null ? null : { prefix, upper: prefixUpperBound(prefix) },
  });
  const tail: TailMatch[] = tailMatches(snap.tail, ca, exCa);
  const from = query.startdate === null ? null : Number(query.startdate);
  const to = query.enddate === null ? null : Number(query.enddate);
  /** every pending match but for ca: what the facet counts take of the tail */
  const facetTail = () => tailRows(snap.tail, null, exCa);
  let categoryCounts: Map<number, number> | undefined;
  const size = snap.nextDocno;
  const view =
    snap.epoch === null || size === 0
      ? new CollectionView(query.collectionId, 'none')
      : await reader.view(db, query.collectionId, snap);

  const keys: PostingKey[] = terms.map((term) => ({ kind: 'w', term }));
  if (query.sort === 0) for (const term of terms) keys.push({ kind: 't', term });
  for (const c of new Set([...(ca ?? []), ...(exCa ?? [])])) {
    keys.push({ kind: 'c', term: String(c) });
  }
  const matches = newBitset(size);
  let titleMatches: Bitset | null = null;
  if (size) {
    const [lists, prefixed] = await Promise.all([
      reader.postings(db, snap, keys, { allCategories: facets }),
      prefix === null
        ? null
        : reader.prefixLists(db, snap, prefix, query.sort === 0 ? ['w', 't'] : ['w']),
    ]);
    const scratch = newBitset(size);
    /** scratch ← OR of the lists of these keys; false when none has a list */
    const union = (kind: PostingKind, values: Array<string | number>) => {
      scratch.fill(0);
      let any = false;
      for (const v of values) if (lists.orInto({ kind, term: String(v) }, scratch)) any = true;
      return any;
    };
    /** set ← set AND the lists of each of these terms, stopping once set is empty */
    const allOf = (set: Bitset, kind: PostingKind, of: string[]) => {
      for (const term of of) {
        if (isEmpty(set)) break;
        if (union(kind, [term])) andInto(set, scratch);
        else set.fill(0);
      }
      return set;
    };
    if (terms.length) lists.orInto({ kind: 'w', term: terms[0]! }, matches);
    allOf(matches, 'w', terms.slice(1));
    if (prefixed) withPrefix(prefixed, matches, scratch, 'w', terms.length === 0);
    if (!isEmpty(matches)) await reader.removeDeleted(db, query.collectionId, snap, matches);
    if (exCa && !isEmpty(matches) && union('c', exCa)) andNotInto(matches, scratch);
    if (facets) {
      keepDateRange(matches, view, from, to);
      categoryCounts = countCategories(lists, matches, facetTail());
    }
    if (ca && !isEmpty(matches)) {
      if (union('c', ca)) andInto(matches, scratch);
      else matches.fill(0);
    }
    if (query.sort === 0) {
      titleMatches = isEmpty(matches) ? matches : allOf(copyBitset(matches), 't', terms);
      if (prefixed) withPrefix(prefixed, titleMatches, scratch, 't', false);
    }
  } else if (query.sort === 0) titleMatches = matches;
  if (facets && !categoryCounts) categoryCounts = countCategories(null, matches, facetTail());
  const hits = evaluate({
    matches,
    titleMatches,
    view,
    tail,
    sort: query.sort,
    start: query.start,
    len: query.len,
    from,
    to,
  });
  return categoryCounts ? { ...hits, categoryCounts } : hits;
}

/**
 * prefix=1: set ← set AND (OR of the lists of this kind whose term starts with the prefix),
 * through scratch; with `first` (the prefix is q's only term) the lists are OR-ed into set.
 */
function withPrefix(
  prefixed: PrefixLists,
  set: Bitset,
  scratch: Bitset,
  kind: PostingKind,
  first: boolean,
): void {
  if (first) {
    prefixed.orInto(kind, set);
    return;
  }
  if (isEmpty(set)) return;
  scratch.fill(0);
  if (prefixed.orInto(kind, scratch)) andInto(set, scratch);
  else set.fill(0);
}
