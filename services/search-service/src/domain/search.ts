import { performance } from 'node:perf_hooks';
import { parseSearchParams, SEARCH_ERRORS, type SearchParamsInput } from '@hub/contracts';
import { loadDocuments } from '../store/documents';
import type { DomainDeps } from './deps';
import { check, step } from './steps';

const E = SEARCH_ERRORS.search;

/** One document of a result page, as stored, plus the result-only fields. */
export interface ResultDocument {
  dockey: string;
  /** the stored doc JSON (exact numbers) */
  doc: string;
  /** archive_* fields from the thumbnail service */
  archive: Record<string, string>;
}

export interface SearchResult {
  /** milliseconds spent finding, counting and loading the page */
  querytime: number;
  start: number;
  numfound: number;
  docs: ResultDocument[];
}

/**
 * GET {search}/v2/{cid}/search/{format}. The parameters are checked; the engine answers the
 * exact number of matches and the ids of the page in order; the page's documents are read from
 * Postgres as stored (a document deleted in between is left out) with their archive fields.
 */
export async function searchDocuments(
  deps: DomainDeps,
  collectionId: string,
  input: SearchParamsInput,
): Promise<SearchResult> {
  const params = check(parseSearchParams(input));
  const started = performance.now();

  const hits = await step(E.makeResultFail, () => deps.index.search({ collectionId, ...params }));
  const [stored, archive] = await step(E.makeResultFail, () =>
    Promise.all([
      loadDocuments(deps.pool, collectionId, hits.docIds),
      hits.docIds.length
        ? deps.thumbnails.resultFields(collectionId, hits.docIds)
        : Promise.resolve(new Map<string, Record<string, string>>()),
    ]),
  );
  const docs: ResultDocument[] = [];
  for (const id of hits.docIds) {
    const doc = stored.get(id);
    if (doc) docs.push({ dockey: doc.dockey, doc: doc.doc, archive: archive.get(id) ?? {} });
  }
  return {
    querytime: Math.round(performance.now() - started),
    start: params.start,
    numfound: hits.numfound,
    docs,
  };
}
