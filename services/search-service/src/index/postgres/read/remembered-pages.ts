import { LRUCache } from 'lru-cache';
import type { SearchQuery } from '../../search-index';

/**
 * The page each recent query found, so that the next search of the same query asks for the
 * page's documents in its snapshot statement (index-store.ts readSnapshotRows) instead of a
 * round trip of their own after the page is known.
 *
 * - A query is the same when every parameter that decides its page is: the collection, q, ca,
 *   ex_ca, start, len, sort, the dates and prefix. hl and facet do not change the page.
 * - What is remembered is only which documents (documents.id), never their content: the
 *   documents always come from PostgreSQL, read by the same statement as the snapshot.
 * - A guess that is wrong (the page changed since) costs the reading of the documents that are
 *   not on the new page; those of the new page that were not asked are read after, as without
 *   a guess. Either way the answer is the same.
 * - Bounded: the last `maxQueries` queries (least recently asked go first), each at most a page
 *   (len ≤ 100 ids).
 */
export interface RememberedPages {
  /** the documents.id of the page this query found last time; empty when not remembered */
  expected(query: SearchQuery): readonly string[];
  /** the page this query found now */
  found(query: SearchQuery, docIds: readonly string[]): void;
}

/** Queries remembered by default: ~10 ids of ~7 bytes and a key of ~100 bytes each, ~2 MB. */
export const REMEMBERED_QUERIES = 10_000;

export function createRememberedPages(maxQueries = REMEMBERED_QUERIES): RememberedPages {
  const pages = new LRUCache<string, readonly string[]>({ max: maxQueries });
  return {
    expected: (query) => pages.get(pageKey(query)) ?? [],
    found(query, docIds) {
      const key = pageKey(query);
      if (docIds.length) pages.set(key, docIds);
      else pages.delete(key);
    },
  };
}

/** What decides a query's page, as one string (JSON: no separator can be forged by q). */
export function pageKey(q: SearchQuery): string {
  return JSON.stringify([
    q.collectionId,
    q.q,
    q.ca,
    q.exCa,
    q.start,
    q.len,
    q.sort,
    q.startdate,
    q.enddate,
    q.prefix === true,
  ]);
}
