import { stemmedQuery } from '../analyser';
import { readTagged, type HighlightTags } from '../highlight/fragment';
import type { EngineHighlight, SearchHits, SearchQuery } from '../search-index';
import { BODY_ATTRIBUTE, INTEGER_TEXT, TITLE_ATTRIBUTE } from './document-mapping';

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

/**
 * The tags Meilisearch is asked to put around its matches (hl=1): private-use characters that
 * documents practically never hold. The hit's marked text is read back with them (readTagged)
 * and used only when it is the stored text (domain/highlights.ts); the client's own tags are
 * put in when the answer is written, as for the Postgres engine.
 */
export const MEILI_HIGHLIGHT_TAGS: HighlightTags = { pre: '\uE000', post: '\uE001' };

/**
 * Length of the body snippet Meilisearch crops, in words (it counts words, where the Postgres
 * engine's snippet counts SNIPPET_CHARS characters); no crop marker, like the Postgres engine.
 */
export const MEILI_CROP_WORDS = 24;

/** What a search request asks of Meilisearch with hl=1: the title marked, the body cropped too. */
export interface MeiliHighlightParams {
  attributesToHighlight: string[];
  highlightPreTag: string;
  highlightPostTag: string;
  attributesToCrop: string[];
  cropLength: number;
  cropMarker: string;
}

export function highlightParams(): MeiliHighlightParams {
  return {
    attributesToHighlight: [TITLE_ATTRIBUTE, BODY_ATTRIBUTE],
    highlightPreTag: MEILI_HIGHLIGHT_TAGS.pre,
    highlightPostTag: MEILI_HIGHLIGHT_TAGS.post,
    attributesToCrop: [BODY_ATTRIBUTE],
    cropLength: MEILI_CROP_WORDS,
    cropMarker: '',
  };
}

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
  } & Partial<MeiliHighlightParams>;
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
 * The q sent: the stemmed q, then, unless prefix=1 is asked, one space. Meilisearch takes the
 * last word of q as a prefix only when it is q's last token (prefix search is an index setting,
 * kept on for prefix=1); a trailing separator is a token of its own, so every word is then
 * matched whole, as by the Postgres engine.
 */
export function searchQ(query: Pick<SearchQuery, 'q' | 'prefix'>): string {
  const q = stemmedQuery(query.q);
  return query.prefix || q === '' ? q : `${q} `;
}

/**
 * The search request of a query. matchingStrategy "all": every query word must match (as in the
 * Postgres engine); only doc_id is retrieved, the documents themselves come from Postgres.
 * Korean words go by their stems (the Postgres engine's particle rules): Meilisearch segments
 * `경복궁에서` into `경복궁` + `에서` and would require `에서` in the document too. With
 * query.highlight, Meilisearch also marks the title and crops the body (highlightParams).
 * query.prefix (prefix=1): see searchQ.
 */
export function buildSearchRequest(query: SearchQuery): MeiliSearchRequest {
  const window = pageWindow(query.start, query.len);
  const sort = buildSort(query.sort);
  const q = searchQ(query);
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
      ...(query.highlight ? highlightParams() : {}),
    },
    ...(apart ? { facetSearch: facetSearch(q, query) } : {}),
    skip: window.skip,
    take: query.len,
  };
}

/** A hit's `_formatted` title and body, read back as marks (null: missing or not paired). */
function engineHighlight(hit: Record<string, unknown>): EngineHighlight {
  const text = (hit._formatted as { text?: { title?: unknown; body?: unknown } } | undefined)?.text;
  const read = (v: unknown) => (typeof v === 'string' ? readTagged(v, MEILI_HIGHLIGHT_TAGS) : null);
  return { title: read(text?.title), body: read(text?.body) };
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
 * highlights asked for, each hit's marks by documents.id; with facet=categories the counts per
 * category (of the facet search when there was one).
 */
export function readSearchResponse(
  request: MeiliSearchRequest,
  response: MeiliSearchResponse,
  facetResponse?: MeiliSearchResponse,
): SearchHits {
  if (typeof response.totalHits !== 'number')
    throw new Error('Meilisearch answered without totalHits');
  const hits = response.hits.slice(request.skip, request.skip + request.take);
  const docIds = hits.map((hit) => {
    const id = hit.doc_id;
    if (typeof id !== 'string' || !INTEGER_TEXT.test(id))
      throw new Error('Meilisearch hit without doc_id');
    return id;
  });
  return {
    numfound: response.totalHits,
    docIds,
    ...(request.params.attributesToHighlight
      ? { highlights: new Map(hits.map((hit, i) => [docIds[i]!, engineHighlight(hit)])) }
      : {}),
    ...(request.params.facets || request.facetSearch
      ? { categoryCounts: readCategoryCounts(request.facetSearch ? facetResponse : response) }
      : {}),
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
