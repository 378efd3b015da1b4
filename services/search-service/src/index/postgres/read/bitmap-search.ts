import type { Queryable } from '@hub/service-kit';
import {
  decidePlan,
  firstRead,
  hasDerived,
  markedPrefix,
  prefixMark,
  matchesPlan,
  partsToRead,
  planCandidates,
  planTerms,
  planTier,
  tailFilter,
  typedTerms,
  type PlanCandidates,
  type QueryPlan,
} from '../../query-plan';
import { noMatches, type SearchHits, type SearchQuery } from '../../search-index';
import { andInto, andNotInto, isEmpty, type Bitset } from '../format/bitset';
import { lendBitsets, type BitsetMaker } from '../format/bitset-pool';
import { CollectionView } from './collection-view';
import { evaluate, type TailMatch } from './evaluate';
import { countCategories, keepDateRange } from './facet-counts';
import type { RememberedPages } from './remembered-pages';
import type { StoredDocumentWithThumbnail } from '../../../store/result-documents';
import type { PostingKind } from '../layout';
import type { Snapshot } from './index-store';
import { andPlanInto, fillAll, PlanBitsets, type OrTerm } from './plan-bitsets';
import type { PrefixLists } from './term-dictionary';
import {
  SnapshotMoved,
  type PostingKey,
  type PostingLists,
  type SnapshotReader,
} from './snapshot-reader';

/**
 * The snapshot's tail rows that pass ca (any of) and ex_ca (none of); null: not applied here
 * (searchOnce applies only the ca that the snapshot's filter left out for facets).
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

/** The pending rows that match the plan (the SQL filtered them loosely: tailFilter). */
export function planRows(rows: Snapshot['tail'], plan: QueryPlan): Snapshot['tail'] {
  return rows.filter(([, , terms]) => {
    const has = new Set(terms);
    return matchesPlan(plan, (t) => has.has(t));
  });
}

/**
 * The pending matches (rows that match the plan: planRows) that pass ca (any of) and ex_ca
 * (none of), each with its relevance tier (query-plan.ts planTier).
 */
export function tailMatches(
  rows: Snapshot['tail'],
  ca: number[] | null,
  exCa: number[] | null,
  plan: QueryPlan,
): TailMatch[] {
  return tailRows(rows, ca, exCa).map(([docId, regdate, terms, , titleTerms]) => {
    const has = new Set(terms);
    const inTitle = new Set(titleTerms);
    return {
      docId,
      regdate: Number(regdate),
      tier: planTier(
        plan,
        (t) => has.has(t),
        (t) => inTitle.has(t),
      ),
    };
  });
}

/**
 * A search over one snapshot of the collection: q's plan (query-plan.ts: each word as typed,
 * or by the forms derived for spacing from the collection's document counts) over the bitsets
 * of its terms (plan-bitsets.ts), categories and deleted numbers combined with AND / AND NOT,
 * the pending tail filtered in SQL and matched by the same plan, then counts and the page from
 * evaluate(). Read on the pool first (no connection held between reads: most snapshots never
 * move); when the snapshot moved (SnapshotMoved), read once more in the reader's `steady`
 * transaction, where it cannot move: a fold or a merge never fails a search.
 *
 * Relevance tiers (sort 0): a plan without derived forms ranks the documents with every term
 * in the title first, as before; with derived forms, the documents that match q as typed come
 * before those found only by a derived form, each with its title tier: typed ∧ title, typed,
 * derived ∧ title (the plan matched in the title), derived. numfound counts every match.
 *
 * Bounded work whatever the parameters: each distinct term and category is looked up once (a
 * repeated one counts once), a category or term no segment has costs a hash probe per segment
 * and no bitset. A search of a plan without derived forms holds at most four bitsets of
 * next_docno / 8 bytes at once (matches, one scratch set the lists of a term or of all listed
 * categories are OR-ed into, the title matches, and evaluate's rest of the matches); a plan
 * with derived forms at most eight (two more while a clause of several alternatives is
 * evaluated, and the typed, typed-title and derived-title tiers). Lists are AND-ed / OR-ed into
 * these as they are read, and the clauses stop at the first that leaves no match. With
 * facet=categories the counts per category are taken between ex_ca and ca (facet-counts.ts),
 * against the matches themselves: no more bitsets.
 */
export async function searchBitmaps(
  reader: SnapshotReader,
  query: SearchQuery,
  pages?: RememberedPages,
): Promise<SearchHits> {
  const candidates = planCandidates(query.q, { prefix: query.prefix === true });
  if (candidates.words.length === 0) return noMatches(query);
  const ca = query.ca === null ? null : [...new Set(query.ca)];
  const exCa = query.exCa === null ? null : [...new Set(query.exCa)];
  const bits = lendBitsets();
  /** the page this query found last time: its documents are read with the snapshot */
  const expected = pages?.expected(query) ?? [];
  const once = (db: Queryable) =>
    searchOnce(reader, db, query, candidates, ca, exCa, bits, expected);
  let hits: SearchHits;
  try {
    try {
      hits = await reader.pooled(once);
    } catch (e) {
      if (!(e instanceof SnapshotMoved)) throw e;
      hits = await reader.steady(once);
    }
  } finally {
    bits.release(); // the answer holds numbers only: no bitset outlives the search
  }
  pages?.found(query, hits.docIds);
  return hits;
}

/** The page's documents among those read with the snapshot (undefined: none of them). */
function pageDocuments(snap: Snapshot, docIds: readonly string[]): SearchHits['documents'] {
  if (!snap.documents?.size) return undefined;
  const documents = new Map<string, StoredDocumentWithThumbnail>();
  for (const id of docIds) {
    const d = snap.documents.get(id);
    if (d) documents.set(id, d);
  }
  return documents.size ? documents : undefined;
}

async function searchOnce(
  reader: SnapshotReader,
  db: Queryable,
  query: SearchQuery,
  candidates: PlanCandidates,
  ca: number[] | null,
  exCa: number[] | null,
  bits: BitsetMaker,
  expected: readonly string[],
): Promise<SearchHits> {
  const facets = query.facet === 'categories';
  const { required, wanted } = tailFilter(candidates);
  /** q's terms as typed (every plan's typed alternatives) */
  const typed = new Set(candidates.words.flatMap((w) => w.terms));
  const whole = (term: string) => markedPrefix(term) === null;
  const first = firstRead(candidates, wanted);
  /** the lists of q's terms (read with the snapshot where they are not cached), then ca's */
  const keys: PostingKey[] = first.filter(whole).map((term) => ({ kind: 'w', term }));
  if (query.sort === 0) for (const term of typed) if (whole(term)) keys.push({ kind: 't', term });
  const termKeys = keys.length;
  for (const c of new Set([...(ca ?? []), ...(exCa ?? [])])) {
    keys.push({ kind: 'c', term: String(c) });
  }
  const snap = await reader.snapshot(
    db,
    query.collectionId,
    {
      required,
      wanted,
      lookups: [...candidates.lookups],
      // the facet counts ignore ca: the tail is then filtered by ca here
      ca: facets ? null : ca,
      exCa,
      from: query.startdate,
      to: query.enddate,
      prefix: prefixFilter(candidates.prefix),
    },
    { documents: expected, lists: keys.slice(0, termKeys) },
  );
  const from = query.startdate === null ? null : Number(query.startdate);
  const to = query.enddate === null ? null : Number(query.enddate);
  let categoryCounts: Map<number, number> | undefined;
  const size = snap.nextDocno;
  const view =
    snap.epoch === null || size === 0
      ? new CollectionView(query.collectionId, 'none')
      : await reader.view(db, query.collectionId, snap);

  const prefix = candidates.prefix;
  const [read, prefixed] = size
    ? await Promise.all([
        reader.postings(db, snap, keys, { allCategories: facets }),
        prefix === null
          ? null
          : reader.prefixLists(db, snap, prefix, query.sort === 0 ? ['w', 't'] : ['w']),
      ])
    : [null, null];
  let lists = read && withPrefixLists(read, prefixed);
  /** the collection's dictionary: documents with the term, folded and pending */
  const df = (term: string) =>
    (lists ? lists.count({ kind: 'w', term }) : 0) + (snap.pendingDf.get(term) ?? 0);
  // the parts of rare whole-run words (query-plan.ts partsToRead): a second read, seldom
  const parts = lists ? partsToRead(candidates, df, new Set(first)) : [];
  if (lists && parts.length) {
    const more = await reader.postings(
      db,
      snap,
      parts.map((term) => ({ kind: 'w', term })),
    );
    lists = bothLists(lists, more);
  }
  const plan = decidePlan(candidates, df);
  const rows = planRows(snap.tail, plan);
  // the snapshot's tail passed ex_ca, and ca unless facets (whose counts ignore ca)
  const tail = tailMatches(rows, facets ? ca : null, null, plan);
  /** every pending match but for ca: what the facet counts take of the tail */
  const facetTail = () => rows;
  const matches = bits.make(size);
  /** sort 0: as many (empty) tiers as the plan ranks by, until the folded ones are known */
  let tiers: Bitset[] =
    query.sort === 0 ? (hasDerived(plan) ? [matches, matches, matches] : [matches]) : [];
  if (lists) {
    const scratch = bits.make(size);
    const work = new PlanBitsets(size, scratch, bits);
    /** scratch ← OR of the lists of these keys; false when none has a list */
    const union = (kind: PostingKind, values: Array<string | number>) => {
      scratch.fill(0);
      let any = false;
      for (const v of values) if (lists.orInto({ kind, term: String(v) }, scratch)) any = true;
      return any;
    };
    fillAll(matches, size);
    andPlanInto(matches, plan, true, orTermOf(lists, 'w'), work);
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
    if (query.sort === 0)
      tiers = await relevanceTiers(reader, db, snap, plan, lists, matches, work, bits);
  }
  if (facets && !categoryCounts) categoryCounts = countCategories(null, matches, facetTail());
  const hits = evaluate({
    matches,
    tiers,
    view,
    tail,
    sort: query.sort,
    start: query.start,
    len: query.len,
    from,
    to,
    bits,
  });
  const documents = pageDocuments(snap, hits.docIds);
  return {
    ...hits,
    ...(categoryCounts ? { categoryCounts } : {}),
    ...(documents ? { documents } : {}),
  };
}

function orTermOf(lists: PostingLists, kind: PostingKind): OrTerm {
  return (term, bits) => lists.orInto({ kind, term }, bits);
}

/** Two reads of disjoint keys as one. */
function bothLists(a: PostingLists, b: PostingLists): PostingLists {
  return {
    orInto: (key, bits) => a.orInto(key, bits) || b.orInto(key, bits),
    count: (key) => a.count(key) + b.count(key),
    eachCategoryList: (each) => a.eachCategoryList(each),
  };
}

/** prefix=1: what the pending tail's match needs of the prefix (pending-tail.ts). */
function prefixFilter(prefix: string | null) {
  return prefix === null ? null : { prefix, mark: prefixMark(prefix) };
}

/**
 * The posting lists of a search with its prefix's lists (prefix=1): a prefix mark ORs every
 * list of its kind whose term starts with the prefix (term-dictionary.ts); a whole term, its
 * own list. Counts are of whole terms only (the plan asks none of a mark).
 */
function withPrefixLists(lists: PostingLists, prefixed: PrefixLists | null): PostingLists {
  if (!prefixed) return lists;
  return {
    orInto: (key, bits) =>
      markedPrefix(key.term) === null ? lists.orInto(key, bits) : prefixed.orInto(key.kind, bits),
    count: (key) => lists.count(key),
    eachCategoryList: (each) => lists.eachCategoryList(each),
  };
}

/**
 * The relevance tiers of the folded matches (evaluate's `tiers`): a plan without derived
 * forms, the matches with every term in the title; with derived forms, the typed matches with
 * the typed terms in the title, the other typed matches, the derived matches whose title
 * matches the plan (the title lists of derived terms read now: most plans have none).
 */
async function relevanceTiers(
  reader: SnapshotReader,
  db: Queryable,
  snap: Snapshot,
  plan: QueryPlan,
  lists: PostingLists,
  matches: Bitset,
  work: PlanBitsets,
  bits: BitsetMaker,
): Promise<Bitset[]> {
  if (isEmpty(matches)) return hasDerived(plan) ? [matches, matches, matches] : [matches];
  const title = orTermOf(lists, 't');
  if (!hasDerived(plan)) {
    const titleMatches = bits.copy(matches);
    andPlanInto(titleMatches, plan, false, title, work);
    return [titleMatches];
  }
  const typed = bits.copy(matches);
  andPlanInto(typed, plan, false, orTermOf(lists, 'w'), work);
  const typedTitle = bits.copy(typed);
  andPlanInto(typedTitle, plan, false, title, work);
  andNotInto(typed, typedTitle);
  const derivedTitle = bits.copy(matches);
  andNotInto(derivedTitle, typed);
  andNotInto(derivedTitle, typedTitle);
  const typedSet = new Set(typedTerms(plan));
  const more = planTerms(plan).filter((t) => !typedSet.has(t));
  const titles = more.length
    ? await reader.postings(
        db,
        snap,
        more.map((term) => ({ kind: 't', term })),
      )
    : null;
  andPlanInto(
    derivedTitle,
    plan,
    true,
    (term, bits) =>
      lists.orInto({ kind: 't', term }, bits) || !!titles?.orInto({ kind: 't', term }, bits),
    work,
  );
  return [typedTitle, typed, derivedTitle];
}
