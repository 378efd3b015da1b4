import { queryTerms } from '../analyser';
import type { SearchHits, SearchQuery } from '../search-index';
import { andInto, andNotInto, newBitset, orInto, type Bitset } from './bitset';
import { CollectionView } from './collection-view';
import { evaluate, type TailMatch } from './evaluate';
import type { PostingKind } from './index-store';
import { SnapshotMoved, type PostingKey, type SnapshotReader } from './snapshot-reader';

/**
 * A search over one snapshot of the collection: the bitsets of its words, categories and
 * deleted numbers combined with AND / AND NOT, the pending tail matched in SQL, then counts and
 * the page from evaluate(). Tried again (at most three times in all) when the snapshot moved.
 */
export async function searchBitmaps(
  reader: SnapshotReader,
  query: SearchQuery,
): Promise<SearchHits> {
  const terms = queryTerms(query.q);
  if (terms.length === 0) return { numfound: 0, docIds: [] };
  for (let attempt = 1; ; attempt++) {
    try {
      return await searchOnce(reader, query, terms);
    } catch (e) {
      if (!(e instanceof SnapshotMoved) || attempt >= 3) throw e;
    }
  }
}

async function searchOnce(
  reader: SnapshotReader,
  query: SearchQuery,
  terms: string[],
): Promise<SearchHits> {
  const snap = await reader.snapshot(query.collectionId, {
    terms,
    ca: query.ca,
    exCa: query.exCa,
    from: query.startdate,
    to: query.enddate,
  });
  const tail: TailMatch[] = snap.tail.map(([docId, regdate, inTitle]) => ({
    docId,
    regdate: Number(regdate),
    inTitle,
  }));
  const size = snap.nextDocno;
  const view =
    snap.epoch === null || size === 0
      ? new CollectionView(query.collectionId, 'none')
      : await reader.view(query.collectionId, snap);

  const keys: PostingKey[] = terms.map((term) => ({ kind: 'w', term }));
  if (query.sort === 0) for (const term of terms) keys.push({ kind: 't', term });
  for (const c of new Set([...(query.ca ?? []), ...(query.exCa ?? [])])) {
    keys.push({ kind: 'c', term: String(c) });
  }
  const lists = size ? await reader.postings(snap, keys) : new Map<string, Bitset>();
  const bitset = (kind: PostingKind, term: string) => lists.get(kind + term) ?? newBitset(size);

  const matches = bitset('w', terms[0]!).slice();
  for (const term of terms.slice(1)) andInto(matches, bitset('w', term));
  if (size) andNotInto(matches, await reader.deleted(query.collectionId, snap));
  if (query.ca) {
    const any = newBitset(size);
    for (const c of query.ca) orInto(any, bitset('c', String(c)));
    andInto(matches, any);
  }
  for (const c of query.exCa ?? []) andNotInto(matches, bitset('c', String(c)));
  let titleMatches: Bitset | null = null;
  if (query.sort === 0) {
    titleMatches = matches.slice();
    for (const term of terms) andInto(titleMatches, bitset('t', term));
  }
  return evaluate({
    matches,
    titleMatches,
    view,
    tail,
    sort: query.sort,
    start: query.start,
    len: query.len,
    from: query.startdate === null ? null : Number(query.startdate),
    to: query.enddate === null ? null : Number(query.enddate),
  });
}
