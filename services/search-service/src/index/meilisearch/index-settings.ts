import { BODY_ATTRIBUTE, FIELDS_ATTRIBUTE, TITLE_ATTRIBUTE } from './document-mapping';

/** Pure: the index settings the engine wants, and the update that brings an index to them. */

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

/**
 * faceting.maxValuesPerFacet: facet=categories answers at most this many categories (Meilisearch's
 * default is 100; the Postgres engine has no such cap, so a search whose matches have more
 * distinct categories gets only this many from Meilisearch).
 */
export const DEFAULT_MAX_FACET_VALUES = 10_000;

/** The index settings, applied idempotently at start (see settingsToUpdate). */
export function indexSettings(
  maxTotalHits: number,
  rankingRules: string[] = DEFAULT_RANKING_RULES,
  maxFacetValues: number = DEFAULT_MAX_FACET_VALUES,
) {
  return {
    // title ranks above body, body above the user's own icontents fields
    searchableAttributes: [TITLE_ATTRIBUTE, BODY_ATTRIBUTE, FIELDS_ATTRIBUTE],
    // categories is also the facet of facet=categories (a facet must be filterable)
    filterableAttributes: ['collection_id', 'categories', 'score_regdate'],
    sortableAttributes: ['score_regdate', 'doc_seq'],
    // "sort" first: sort=1 is strictly newest first; without a sort parameter the rule is inert
    rankingRules,
    localizedAttributes: [{ attributePatterns: ['text', 'text.*'], locales: ['kor', 'eng'] }],
    // whole words, as the Postgres engine: no typo tolerance. Prefix search stays built
    // (prefixSearch is per index) for prefix=1; a search without it ends q with a separator,
    // which makes Meilisearch match the last word whole (searchQ in query-mapping.ts)
    typoTolerance: { enabled: false },
    prefixSearch: 'indexingTime' as const,
    pagination: { maxTotalHits },
    faceting: { maxValuesPerFacet: maxFacetValues },
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
  const faceting = current.faceting as { maxValuesPerFacet?: number } | undefined;
  if (faceting?.maxValuesPerFacet !== wanted.faceting.maxValuesPerFacet) {
    update.faceting = wanted.faceting;
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
