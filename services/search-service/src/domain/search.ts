import { performance } from 'node:perf_hooks';
import {
  parseHighlightParams,
  parsePrefixParam,
  parseSearchFacet,
  parseSearchParams,
  SEARCH_ERRORS,
  type HighlightParams,
  type HighlightParamsInput,
  type SearchFacet,
  type SearchParams,
  type SearchParamsInput,
} from '@hub/contracts';
import { ServiceError } from '@hub/service-kit';
import {
  loadDocuments,
  loadDocumentsWithThumbnails,
  type StoredDocumentWithThumbnail,
} from '../store/result-documents';
import type { DomainDeps } from './deps';
import { highlightPage, type HighlightFields } from './highlights';
import { check, step } from './steps';

/** One document of a result page, as stored, plus the result-only fields. */
export interface ResultDocument {
  dockey: string;
  /** the stored doc JSON (exact numbers), as its UTF-8 bytes (store/result-documents.ts) */
  doc: Buffer;
  /** archive_* fields from the thumbnail service */
  archive: Record<string, string>;
  /** hl=1: highlight_title and highlight_body (beyond the spec) */
  highlight?: HighlightFields;
}

export interface SearchResult {
  /** milliseconds spent finding, counting and loading the page */
  querytime: number;
  start: number;
  numfound: number;
  docs: ResultDocument[];
  /** facet=categories only: [category, number of matches], ascending by category */
  facets?: { categories: Array<[number, number]> };
}

/** The search's parameters as sent: the spec's, and `facet` and `prefix` (beyond the spec). */
export interface SearchInput extends SearchParamsInput {
  facet?: string | null;
  prefix?: string | null;
}

export interface CheckedSearch extends SearchParams {
  facet: SearchFacet | null;
  /** prefix=1: search-as-you-type (index/prefix-expansion.ts) */
  prefix: boolean;
}

/**
 * The search's parameters, checked (q → ca → ex_ca → start → len → sort → startdate → enddate,
 * then facet and prefix, which the spec does not have, so no spec row moves): step 6 of the check order,
 * before the search waits for its collection's share of the cores.
 */
export function checkSearchParams(input: SearchInput): CheckedSearch {
  const params = check(parseSearchParams(input));
  const facet = parseSearchFacet(input.facet);
  if (!facet.ok) throw new ServiceError(facet.error);
  const prefix = parsePrefixParam(input.prefix);
  if (!prefix.ok) throw new ServiceError(prefix.error);
  return { ...params, facet: facet.value, prefix: prefix.value };
}

/** hl, hl_pre, hl_post (beyond the spec), checked after every parameter of the spec. */
export function checkHighlightParams(input: HighlightParamsInput): HighlightParams | null {
  return check(parseHighlightParams(input));
}

/**
 * GET {search}/v2/{cid}/search/{format}, once its parameters are checked: the engine answers the
 * exact number of matches and the ids of the page in order; the page's documents are read from
 * Postgres as stored (a document deleted in between is left out) with their archive fields,
 * and with `highlight` (hl=1) their highlight fields (domain/highlights.ts).
 */
export async function searchDocuments(
  deps: DomainDeps,
  collectionId: string,
  params: CheckedSearch,
  highlight: HighlightParams | null = null,
): Promise<SearchResult> {
  const started = performance.now();

  const failed = SEARCH_ERRORS.search.makeResultFail;
  const hits = await step(failed, () =>
    deps.index.search({ collectionId, ...params, highlight: highlight !== null }),
  );
  const docs = await step(failed, () => loadPage(deps, collectionId, hits.docIds, hits.documents));
  if (highlight) {
    const fields = await step(failed, async () =>
      highlightPage(params.q, highlight, docs, hits.highlights, params.prefix),
    );
    for (const d of docs) d.highlight = fields.get(d.id);
  }
  return {
    querytime: Math.round(performance.now() - started),
    start: params.start,
    numfound: hits.numfound,
    docs,
    ...(params.facet === 'categories'
      ? { facets: { categories: ascending(hits.categoryCounts) } }
      : {}),
  };
}

/** An engine's counts per category as [category, count], ascending by category. */
function ascending(counts: Map<number, number> | undefined): Array<[number, number]> {
  if (!counts) throw new Error('the engine answered no facet counts');
  return [...counts].sort((a, b) => a[0] - b[0]);
}

/**
 * The page's documents as stored, in hit order (one deleted in between is left out), with
 * their archive fields: one query when the thumbnail service reads its rows with them, none
 * when the engine read them all already (`read`: SearchHits.documents).
 */
async function loadPage(
  deps: DomainDeps,
  collectionId: string,
  ids: string[],
  read?: ReadonlyMap<string, StoredDocumentWithThumbnail>,
): Promise<Array<ResultDocument & { id: string }>> {
  const { thumbnails } = deps;
  const docs: Array<ResultDocument & { id: string }> = [];
  const unread = read ? ids.filter((id) => !read.has(id)) : ids;
  if (thumbnails.archiveFields) {
    const loaded = await loadDocumentsWithThumbnails(deps.pool, collectionId, unread);
    for (const id of ids) {
      const d = read?.get(id) ?? loaded.get(id);
      if (!d) continue;
      const archive = d.thumbnail ? thumbnails.archiveFields(collectionId, d.thumbnail) : {};
      docs.push({ id, dockey: d.dockey, doc: d.doc, archive });
    }
    return docs;
  }
  const [loaded, archive] = await Promise.all([
    loadDocuments(deps.pool, collectionId, unread),
    ids.length
      ? thumbnails.resultFields(collectionId, ids)
      : new Map<string, Record<string, string>>(),
  ]);
  for (const id of ids) {
    const d = read?.get(id) ?? loaded.get(id);
    if (d) docs.push({ id, dockey: d.dockey, doc: d.doc, archive: archive.get(id) ?? {} });
  }
  return docs;
}
