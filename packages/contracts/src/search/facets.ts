import { SEARCH_HTTP_ERRORS, type HttpAnswer } from './http-errors';

/**
 * Beyond the spec: `facet=categories` asks a search for the exact number of matching documents
 * per category, over every match (not only the page) after every filter but `ca` itself. The
 * spec has no such parameter, so a search without it answers exactly as the spec says; it is
 * checked after every spec parameter (step 6, after parseSearchParams), so no spec row moves.
 */
export const SEARCH_FACETS = ['categories'] as const;

export type SearchFacet = (typeof SEARCH_FACETS)[number];

export type SearchFacetResult =
  { ok: true; value: SearchFacet | null } | { ok: false; error: HttpAnswer };

/**
 * facet: missing, empty or blank → null (no facets, like any absent optional search
 * parameter); `categories` (trimmed, lower case) → 'categories'; anything else, an invalid
 * encoding included → 400 facet parameter is invalid.
 */
export function parseSearchFacet(raw: string | undefined | null): SearchFacetResult {
  const text = raw?.trim() ?? '';
  if (text === '') return { ok: true, value: null };
  const facet = SEARCH_FACETS.find((f) => f === text);
  return facet ? { ok: true, value: facet } : { ok: false, error: SEARCH_HTTP_ERRORS.facetInvalid };
}
