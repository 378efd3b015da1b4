import { stemmedQuery } from '../analyser';
import type { SearchHits, SearchQuery } from '../search-index';
import { INTEGER_TEXT } from './document-mapping';

/** Pure: a search query as a Meilisearch search request (filter, sort, page), and its answer. */

/** A string literal of the filter syntax: double quotes, `"` and `\` escaped. */
export function filterString(s: string): string {
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** `[1, 2]`: each value once, in the order first given (a repeated value adds nothing). */
function integerList(values: number[]): string {
  const distinct = [...new Set(values)];
  for (const v of distinct) {
    if (!Number.isSafeInteger(v) || v < 0) throw new Error(`invalid category ${v}`);
  }
  return `[${distinct.join(', ')}]`;
}

function unixTime(text: string): string {
  // passed on as its exact digits; values up to 253402300799 are exact in Meilisearch's f64
  if (!INTEGER_TEXT.test(text)) throw new Error(`invalid unix time ${text}`);
  return text;
}

/**
 * The filter of a query (array = AND): the collection always, then ca (any of), ex_ca
 * (none of; documents without categories pass), startdate/enddate (inclusive). An empty ca
 * matches nothing (see matchesNothing); an empty ex_ca excludes nothing. A list names each
 * category once, so its length is the number of distinct values asked for, not of entries.
 */
export function buildFilter(query: SearchQuery): string[] {
  const filter = [`collection_id = ${filterString(query.collectionId)}`];
  if (query.ca && query.ca.length > 0) filter.push(`categories IN ${integerList(query.ca)}`);
  if (query.exCa && query.exCa.length > 0)
    filter.push(`NOT categories IN ${integerList(query.exCa)}`);
  if (query.startdate !== null) filter.push(`score_regdate >= ${unixTime(query.startdate)}`);
  if (query.enddate !== null) filter.push(`score_regdate <= ${unixTime(query.enddate)}`);
  return filter;
}

/** sort=1 → newest first (ties: newest documents.id); sort=0 → relevance (no sort parameter). */
export function buildSort(sort: 0 | 1): string[] | undefined {
  return sort === 1 ? ['score_regdate:desc', 'doc_seq:desc'] : undefined;
}

const WORD = /[\p{L}\p{M}\p{N}]/u;

/**
 * A query that matches nothing, answered without asking Meilisearch (which would treat an empty
 * q as "every document"): q without any word (as the Postgres engine), or an empty ca list
 * (which the contracts' parser never gives).
 */
export function matchesNothing(query: SearchQuery): boolean {
  return !WORD.test(query.q) || (query.ca !== null && query.ca.length === 0);
}

export interface PageWindow {
  /** Meilisearch page (1-based) */
  page: number;
  hitsPerPage: number;
  /** hits of that page to drop before the requested ones */
  skip: number;
}

/**
 * The one Meilisearch page that covers hits [start, start + len). Page mode (page/hitsPerPage)
 * is used because only it returns an exact `totalHits`; offset/limit only estimates. The
 * smallest hitsPerPage ≥ len whose page boundaries do not split the range is chosen, e.g.
 * start 15, len 10 → hitsPerPage 13, page 2 (hits 13..25), skip 2. Worst case for the
 * allowed range (start ≤ 990, len 10..100) is start 99, len 100: one page of 199 ids (2.3 × len
 * at most), a negligible price for an exact count in one request.
 */
export function pageWindow(start: number, len: number): PageWindow {
  if (!Number.isInteger(start) || start < 0) throw new Error(`invalid start ${start}`);
  if (!Number.isInteger(len) || len < 1) throw new Error(`invalid len ${len}`);
  const last = start + len - 1;
  for (let size = len; ; size++) {
    const first = Math.floor(start / size);
    if (first === Math.floor(last / size)) {
      return { page: first + 1, hitsPerPage: size, skip: start - first * size };
    }
  }
}

/** The facet of facet=categories: Meilisearch counts it for every match (facetDistribution). */
export const CATEGORY_FACET = 'categories';

export interface MeiliSearchRequest {
  q: string;
  params: {
    filter: string[];
    sort?: string[];
    page: number;
    hitsPerPage: number;
    attributesToRetrieve: string[];
    matchingStrategy: 'all';
    locales: string[];
    /** facet=categories without ca: the counts come with the hits */
    facets?: string[];
  };
  /**
   * facet=categories with ca: the counts come from this search of the same words and filters
   * but ca (no hits), sent with the other in one multi-search request
   */
  facetSearch?: {
    q: string;
    params: {
      filter: string[];
      page: 1;
      hitsPerPage: 0;
      facets: string[];
      matchingStrategy: 'all';
      locales: string[];
    };
  };
  /** hits of the returned page to drop, then take `take` */
  skip: number;
  take: number;
}

/**
 * The search request of a query. matchingStrategy "all": every query word must match (as in the
 * Postgres engine); only doc_id is retrieved, the documents themselves come from Postgres.
 * Korean words go by their stems (the Postgres engine's particle rules): Meilisearch segments
 * `경복궁에서` into `경복궁` + `에서` and would require `에서` in the document too.
 */
export function buildSearchRequest(query: SearchQuery): MeiliSearchRequest {
  const window = pageWindow(query.start, query.len);
  const sort = buildSort(query.sort);
  const q = stemmedQuery(query.q);
  const facets = query.facet === 'categories';
  // the counts ignore ca: with a ca they come from a second search without it
  const apart = facets && query.ca !== null;
  return {
    q,
    params: {
      filter: buildFilter(query),
      ...(sort ? { sort } : {}),
      page: window.page,
      hitsPerPage: window.hitsPerPage,
      attributesToRetrieve: ['doc_id'],
      matchingStrategy: 'all',
      locales: ['kor', 'eng'],
      ...(facets && !apart ? { facets: [CATEGORY_FACET] } : {}),
    },
    ...(apart ? { facetSearch: facetSearch(q, query) } : {}),
    skip: window.skip,
    take: query.len,
  };
}

/** The search of facet=categories with ca: the same words and filters but ca, no hits. */
function facetSearch(q: string, query: SearchQuery): MeiliSearchRequest['facetSearch'] {
  return {
    q,
    params: {
      filter: buildFilter({ ...query, ca: null }),
      // page mode, as for the hits: the counts are exhaustive like totalHits
      page: 1,
      hitsPerPage: 0,
      facets: [CATEGORY_FACET],
      matchingStrategy: 'all',
      locales: ['kor', 'eng'],
    },
  };
}

export interface MeiliSearchResponse {
  hits: Array<Record<string, unknown>>;
  totalHits?: number;
  facetDistribution?: Record<string, Record<string, number>>;
}

/**
 * Search response → the requested slice of documents.id and the exact count, and with
 * facet=categories the counts per category (of the facet search when there was one).
 */
export function readSearchResponse(
  request: MeiliSearchRequest,
  response: MeiliSearchResponse,
  facetResponse?: MeiliSearchResponse,
): SearchHits {
  if (typeof response.totalHits !== 'number')
    throw new Error('Meilisearch answered without totalHits');
  const docIds = response.hits.slice(request.skip, request.skip + request.take).map((hit) => {
    const id = hit.doc_id;
    if (typeof id !== 'string' || !INTEGER_TEXT.test(id))
      throw new Error('Meilisearch hit without doc_id');
    return id;
  });
  if (!request.params.facets && !request.facetSearch)
    return { numfound: response.totalHits, docIds };
  return {
    numfound: response.totalHits,
    docIds,
    categoryCounts: readCategoryCounts(request.facetSearch ? facetResponse : response),
  };
}

/** facetDistribution.categories → count by category (a category no match has is left out). */
function readCategoryCounts(response: MeiliSearchResponse | undefined): Map<number, number> {
  const distribution = response?.facetDistribution;
  if (!distribution) throw new Error('Meilisearch answered without facetDistribution');
  const counts = new Map<number, number>();
  for (const [value, count] of Object.entries(distribution[CATEGORY_FACET] ?? {})) {
    if (!INTEGER_TEXT.test(value) || !Number.isSafeInteger(count) || count < 0) {
      throw new Error(`Meilisearch answered a category count ${value}: ${count}`);
    }
    if (count > 0) counts.set(Number(value), count);
  }
  return counts;
}
