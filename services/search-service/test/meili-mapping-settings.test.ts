import {
  DEFAULT_RANKING_RULES,
  indexSettings,
  settingsToUpdate,
} from '../src/index/meilisearch/mapping';

describe('Index settings', () => {
  const wanted = indexSettings(100000);

  test('When the settings are built, title ranks above body and every filter/sort field is declared', () => {
    expect(wanted.searchableAttributes).toEqual(['text.title', 'text.body', 'text.fields']);
    expect(wanted.filterableAttributes).toEqual(['collection_id', 'categories', 'score_regdate']);
    expect(wanted.sortableAttributes).toEqual(['score_regdate', 'doc_seq']);
    expect(wanted.rankingRules).toEqual(DEFAULT_RANKING_RULES);
    expect(wanted.rankingRules.indexOf('attributeRank')).toBeLessThan(
      wanted.rankingRules.indexOf('score_regdate:desc'),
    );
    expect(wanted.typoTolerance).toEqual({ enabled: false });
    expect(wanted.prefixSearch).toBe('indexingTime'); // prefix=1; other searches end q with a space
    expect(wanted.localizedAttributes[0]!.locales).toEqual(['kor', 'eng']);
    expect(wanted.pagination.maxTotalHits).toBe(100000);
  });

  test('When the index already has the settings (in another order), nothing is updated', () => {
    const current = {
      ...wanted,
      filterableAttributes: ['score_regdate', 'categories', 'collection_id'],
      localizedAttributes: [{ attributePatterns: ['text.*', 'text'], locales: ['eng', 'kor'] }],
      displayedAttributes: ['*'],
      typoTolerance: { enabled: false, minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 } },
    };
    expect(settingsToUpdate(current, wanted)).toBeNull();
  });

  test('When the index is new, every setting is updated', () => {
    const defaults = {
      searchableAttributes: ['*'],
      filterableAttributes: [],
      sortableAttributes: [],
      rankingRules: ['words', 'typo', 'proximity', 'attribute', 'sort', 'exactness'],
      localizedAttributes: null,
      typoTolerance: { enabled: true },
      prefixSearch: 'disabled',
      pagination: { maxTotalHits: 1000 },
    };
    expect(settingsToUpdate(defaults, wanted)).toEqual(wanted);
  });

  test('When the settings are built, categories can be counted (facet=categories) up to 10,000 values', () => {
    expect(wanted.filterableAttributes).toContain('categories');
    expect(wanted.faceting).toEqual({ maxValuesPerFacet: 10_000 });
    expect(indexSettings(100000, DEFAULT_RANKING_RULES, 500).faceting).toEqual({
      maxValuesPerFacet: 500,
    });
  });

  test('When only maxValuesPerFacet differs (Meilisearch default 100), only faceting is updated', () => {
    const current = { ...wanted, faceting: { maxValuesPerFacet: 100, sortFacetValuesBy: {} } };
    expect(settingsToUpdate(current, wanted)).toEqual({
      faceting: { maxValuesPerFacet: 10_000 },
    });
  });

  test('When only maxTotalHits differs, only pagination is updated', () => {
    expect(settingsToUpdate({ ...wanted, pagination: { maxTotalHits: 1000 } }, wanted)).toEqual({
      pagination: { maxTotalHits: 100000 },
    });
  });
});
