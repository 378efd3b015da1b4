import { createHash } from 'node:crypto';
import { stemmedQuery } from '../analyser';
import type { DocumentChange, SearchQuery } from '../search-index';

/**
 * Pure mapping between the service's documents/queries and Meilisearch's documents, settings
 * and search requests. No I/O here: everything is unit-tested in test/meili-mapping.test.ts.
 */

/** The document stored in Meilisearch (one shared index for every collection). */
export interface MeiliDocument {
  /** meiliDocumentId(collection_id, dockey): [A-Za-z0-9_-], 52 bytes */
  id: string;
  collection_id: string;
  /** documents.id as exact text: search returns it and the domain loads the doc from Postgres */
  doc_id: string;
  /** documents.version as exact text (diagnostics only; ordering is kept by the outbox) */
  version: string;
  dockey: string;
  /** every analysed (icontents_*) field, under one searchable object */
  text: {
    title: string;
    body: string;
    /** user icontents_<name> fields, keyed by <name> */
    fields: Record<string, string>;
  };
  /** [] when the doc has no categories (Meilisearch: `NOT categories IN [..]` then matches) */
  categories: number[];
  /** score_regdate; ≤ 253402300799 < 2^53 so the f64 that Meilisearch keeps is exact */
  score_regdate: number;
  /** documents.id as a number, only to break ties like the Postgres engine (newest id first) */
  doc_seq?: number;
}

export const TITLE_ATTRIBUTE = 'text.title';
export const BODY_ATTRIBUTE = 'text.body';
export const FIELDS_ATTRIBUTE = 'text.fields';

/**
 * Meilisearch document id for (collection, dockey): `<collection_id>-<base64url(sha256(dockey))>`.
 * A dockey may be 1024 arbitrary bytes, Meilisearch ids are [A-Za-z0-9_-]{1,511}: the hash
 * keeps ids short and valid, the collection prefix keeps collections apart.
 */
export function meiliDocumentId(collectionId: string, dockey: string): string {
  if (!/^[A-Za-z0-9_]+$/.test(collectionId))
    throw new Error(`invalid collection id ${collectionId}`);
  const hash = createHash('sha256').update(dockey, 'utf8').digest('base64url');
  return `${collectionId}-${hash}`;
}

const INTEGER_TEXT = /^(0|[1-9][0-9]*)$/;

/** The Meilisearch document of an upsert change (throws on a delete: it has no document). */
export function toMeiliDocument(change: DocumentChange): MeiliDocument {
  const doc = change.doc;
  if (change.op !== 'upsert' || doc === null) throw new Error('only an upsert has a document');
  if (!INTEGER_TEXT.test(doc.regdate) || !Number.isSafeInteger(Number(doc.regdate))) {
    throw new Error(`score_regdate ${doc.regdate} is not an exact f64 integer`);
  }
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(doc.icontents)) {
    if (name === 'icontents_title' || name === 'icontents_body') continue;
    fields[name.slice('icontents_'.length)] = value;
  }
  return {
    id: meiliDocumentId(change.collectionId, change.dockey),
    collection_id: change.collectionId,
    doc_id: change.docId,
    version: change.version,
    dockey: change.dockey,
    text: { title: doc.title, body: doc.body, fields },
    categories: doc.categories ?? [],
    score_regdate: Number(doc.regdate),
    ...(Number.isSafeInteger(Number(change.docId)) ? { doc_seq: Number(change.docId) } : {}),
  };
}

/**
 * Ranking of the Postgres engine, which the Meilisearch engine reproduces: relevance (sort=0)
 * puts documents matching the query in their title first, then newest first (score_regdate,
 * then documents.id); sort=1 is newest first. attributeRank/wordPosition need Meilisearch
 * ≥ 1.36; for an older server pass rankingRules with "attribute" instead of "attributeRank".
 */
export const DEFAULT_RANKING_RULES = [
  'sort',
  'words',
  'attributeRank',
  'score_regdate:desc',
  'doc_seq:desc',
];

/** The index settings, applied idempotently at start (see settingsToUpdate). */
export function indexSettings(
  maxTotalHits: number,
  rankingRules: string[] = DEFAULT_RANKING_RULES,
) {
  return {
    // title ranks above body, body above the user's own icontents fields
    searchableAttributes: [TITLE_ATTRIBUTE, BODY_ATTRIBUTE, FIELDS_ATTRIBUTE],
    filterableAttributes: ['collection_id', 'categories', 'score_regdate'],
    sortableAttributes: ['score_regdate', 'doc_seq'],
    // "sort" first: sort=1 is strictly newest first; without a sort parameter the rule is inert
    rankingRules,
    localizedAttributes: [{ attributePatterns: ['text', 'text.*'], locales: ['kor', 'eng'] }],
    // whole words only, as the Postgres engine: no typo tolerance, no prefix matching
    typoTolerance: { enabled: false },
    prefixSearch: 'disabled' as const,
    pagination: { maxTotalHits },
  };
}

export type IndexSettings = ReturnType<typeof indexSettings>;

function sameList(a: unknown, b: readonly string[], ordered: boolean): boolean {
  if (!Array.isArray(a)) return false;
  const names = a.map((x) =>
    typeof x === 'string'
      ? x
      : (x as { attributePatterns?: string[] })?.attributePatterns?.join(','),
  );
  if (names.length !== b.length) return false;
  if (ordered) return names.every((n, i) => n === b[i]);
  const sorted = [...names].sort();
  return [...b].sort().every((n, i) => n === sorted[i]);
}

/**
 * The part of `wanted` that differs from the index's current settings (null when none), so a
 * restart never enqueues a settings task (which would re-index everything) for nothing.
 */
export function settingsToUpdate(
  current: Record<string, unknown>,
  wanted: IndexSettings,
): Partial<IndexSettings> | null {
  const update: Partial<IndexSettings> = {};
  if (!sameList(current.searchableAttributes, wanted.searchableAttributes, true)) {
    update.searchableAttributes = wanted.searchableAttributes;
  }
  if (!sameList(current.filterableAttributes, wanted.filterableAttributes, false)) {
    update.filterableAttributes = wanted.filterableAttributes;
  }
  if (!sameList(current.sortableAttributes, wanted.sortableAttributes, false)) {
    update.sortableAttributes = wanted.sortableAttributes;
  }
  if (!sameList(current.rankingRules, wanted.rankingRules, true)) {
    update.rankingRules = wanted.rankingRules;
  }
  if (
    JSON.stringify(normaliseLocalized(current.localizedAttributes)) !==
    JSON.stringify(normaliseLocalized(wanted.localizedAttributes))
  ) {
    update.localizedAttributes = wanted.localizedAttributes;
  }
  if (
    (current.typoTolerance as { enabled?: boolean } | undefined)?.enabled !==
    wanted.typoTolerance.enabled
  ) {
    update.typoTolerance = wanted.typoTolerance;
  }
  if (current.prefixSearch !== wanted.prefixSearch) update.prefixSearch = wanted.prefixSearch;
  const pagination = current.pagination as { maxTotalHits?: number } | undefined;
  if (pagination?.maxTotalHits !== wanted.pagination.maxTotalHits) {
    update.pagination = wanted.pagination;
  }
  return Object.keys(update).length === 0 ? null : update;
}

function normaliseLocalized(v: unknown): unknown {
  if (!Array.isArray(v)) return [];
  return v.map((r: { attributePatterns?: string[]; locales?: string[] }) => ({
    attributePatterns: [...(r.attributePatterns ?? [])].sort(),
    locales: [...(r.locales ?? [])].sort(),
  }));
}

/** A string literal of the filter syntax: double quotes, `"` and `\` escaped. */
export function filterString(s: string): string {
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

function integerList(values: number[]): string {
  for (const v of values) {
    if (!Number.isSafeInteger(v) || v < 0) throw new Error(`invalid category ${v}`);
  }
  return `[${values.join(', ')}]`;
}

function unixTime(text: string): string {
  // passed on as its exact digits; values up to 253402300799 are exact in Meilisearch's f64
  if (!INTEGER_TEXT.test(text)) throw new Error(`invalid unix time ${text}`);
  return text;
}

/**
 * The filter of a query (array = AND): the collection always, then ca (any of), ex_ca
 * (none of; documents without categories pass), startdate/enddate (inclusive). An empty ca
 * matches nothing (see matchesNothing); an empty ex_ca excludes nothing.
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
 * q as "every document"): q without any word (as the Postgres engine), or an empty ca list.
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
  return {
    q: stemmedQuery(query.q),
    params: {
      filter: buildFilter(query),
      ...(sort ? { sort } : {}),
      page: window.page,
      hitsPerPage: window.hitsPerPage,
      attributesToRetrieve: ['doc_id'],
      matchingStrategy: 'all',
      locales: ['kor', 'eng'],
    },
    skip: window.skip,
    take: query.len,
  };
}

/** Search response → the requested slice of documents.id and the exact count. */
export function readSearchResponse(
  request: MeiliSearchRequest,
  response: { hits: Array<Record<string, unknown>>; totalHits?: number },
): { numfound: number; docIds: string[] } {
  if (typeof response.totalHits !== 'number')
    throw new Error('Meilisearch answered without totalHits');
  const docIds = response.hits.slice(request.skip, request.skip + request.take).map((hit) => {
    const id = hit.doc_id;
    if (typeof id !== 'string' || !INTEGER_TEXT.test(id))
      throw new Error('Meilisearch hit without doc_id');
    return id;
  });
  return { numfound: response.totalHits, docIds };
}
