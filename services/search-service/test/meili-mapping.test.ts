import { parseDoc, type ParsedDoc } from '@hub/contracts';
import type { DocumentChange, SearchQuery } from '../src/index/search-index';
import {
  buildFilter,
  buildSearchRequest,
  buildSort,
  DEFAULT_RANKING_RULES,
  filterString,
  matchesNothing,
  indexSettings,
  meiliDocumentId,
  pageWindow,
  readSearchResponse,
  settingsToUpdate,
  toMeiliDocument,
} from '../src/index/meilisearch/mapping';
import { backoffMs } from '@hub/service-kit';
import {
  compareVersions,
  planBatch,
  type OutboxRow,
} from '../src/index/meilisearch/outbox/coalesce';
import { SEARCH_ASKS } from './helpers/meili-search';

function doc(fields: Record<string, unknown>): ParsedDoc {
  return docJson(JSON.stringify(fields));
}

function docJson(json: string): ParsedDoc {
  const r = parseDoc(json);
  if (!r.ok) throw new Error(`bad test doc: ${r.error.text}`);
  return r.value;
}

/** A change of a document of collection abcd1234: an upsert of `parsed`, or with null a delete. */
function changeOf(
  dockey: string,
  docId: string,
  version: string,
  parsed: ParsedDoc | null,
): DocumentChange {
  const at = { collectionId: 'abcd1234', dockey, docId, version };
  return parsed ? { op: 'upsert', ...at, doc: parsed } : { op: 'delete', ...at, doc: null };
}

const base = {
  icontents_title: '제목 title',
  icontents_body: '본문 body',
  score_regdate: 1700000000,
};

/** A search of 'hello' in collection abcd1234, first page, no filter, unless `over` says. */
function query(over: Partial<SearchQuery> = {}): SearchQuery {
  const unfiltered = { ca: null, exCa: null, startdate: null, enddate: null };
  return {
    collectionId: 'abcd1234',
    q: 'hello',
    start: 0,
    len: 10,
    sort: 0,
    ...unfiltered,
    ...over,
  };
}

describe('Meilisearch document ids', () => {
  test('When a dockey is 1024 arbitrary bytes, the id is short, valid and stable', () => {
    const dockey = '키'.repeat(300) + '/?#%\u0001 "\'' + 'x'.repeat(100);
    const id = meiliDocumentId('abcd1234', dockey);
    expect(id).toMatch(/^abcd1234-[A-Za-z0-9_-]{43}$/);
    expect(Buffer.byteLength(id)).toBeLessThanOrEqual(511);
    expect(meiliDocumentId('abcd1234', dockey)).toBe(id);
  });

  test('When the same dockey is in two collections, the ids differ', () => {
    expect(meiliDocumentId('abcd1234', 'k')).not.toBe(meiliDocumentId('zzzz9999', 'k'));
    expect(meiliDocumentId('abcd1234', 'k')).not.toBe(meiliDocumentId('abcd1234', 'K'));
  });
});

describe('Meilisearch documents', () => {
  test('When a doc has user fields, analysed fields nest under text and only doc_id/version are exact text', () => {
    const change = changeOf(
      'doc-1',
      '9007199254740993',
      '3',
      docJson(
        '{"icontents_title":"제목 title","icontents_body":"본문 body","score_regdate":1700000000,' +
          '"icontents_summary":"요약","contents_url":"https://ex.com/a","score_view":9223372036854775807,' +
          '"categories":[1,7]}',
      ),
    );
    expect(toMeiliDocument(change)).toEqual({
      id: meiliDocumentId('abcd1234', 'doc-1'),
      collection_id: 'abcd1234',
      doc_id: '9007199254740993',
      version: '3',
      dockey: 'doc-1',
      text: { title: '제목 title', body: '본문 body', fields: { summary: '요약' } },
      categories: [1, 7],
      score_regdate: 1700000000,
    });
  });

  test('When documents.id is a safe integer, it is also kept as doc_seq for tie-breaking', () => {
    const m = toMeiliDocument(changeOf('k', '42', '1', doc(base)));
    expect(m.doc_seq).toBe(42);
  });

  test('When a doc has no categories, categories is [] and the largest regdate stays exact', () => {
    const change = changeOf('k', '1', '1', doc({ ...base, score_regdate: 253402300799 }));
    const m = toMeiliDocument(change);
    expect(m.categories).toEqual([]);
    expect(m.score_regdate).toBe(253402300799);
    expect(String(m.score_regdate)).toBe('253402300799');
  });

  test('When the change is a delete, there is no document to map', () => {
    expect(() => toMeiliDocument(changeOf('k', '1', '2', null))).toThrow();
  });
});

describe('Meilisearch filters and sort', () => {
  test('When only q is given, the collection is still filtered', () => {
    expect(buildFilter(query())).toEqual(['collection_id = "abcd1234"']);
  });

  test('When every filter is given, each becomes one AND-ed filter expression', () => {
    expect(
      buildFilter(query({ ca: [1, 2], exCa: [3], startdate: '100', enddate: '253402300799' })),
    ).toEqual([
      'collection_id = "abcd1234"',
      'categories IN [1, 2]',
      'NOT categories IN [3]',
      'score_regdate >= 100',
      'score_regdate <= 253402300799',
    ]);
  });

  test('When ca or ex_ca is empty, it filters nothing', () => {
    expect(buildFilter(query({ ca: [], exCa: [] }))).toEqual(['collection_id = "abcd1234"']);
  });

  test('When a date is not integer text, building the filter refuses it', () => {
    expect(() => buildFilter(query({ startdate: '1e3' }))).toThrow();
    expect(() => buildFilter(query({ enddate: '1 OR 1=1' }))).toThrow();
  });

  test('When a string contains quotes or backslashes, filterString escapes them', () => {
    expect(filterString('a"b\\c')).toBe('"a\\"b\\\\c"');
  });

  test('When sort=1 the newest come first (ties: newest documents.id); sort=0 sends no sort', () => {
    expect(buildSort(1)).toEqual(['score_regdate:desc', 'doc_seq:desc']);
    expect(buildSort(0)).toBeUndefined();
  });

  test('When q has no word or ca is empty, the query matches nothing without asking Meilisearch', () => {
    expect(matchesNothing(query({ q: '' }))).toBe(true);
    expect(matchesNothing(query({ q: ' !?. ' }))).toBe(true);
    expect(matchesNothing(query({ ca: [] }))).toBe(true);
    expect(matchesNothing(query({ q: '서울' }))).toBe(false);
    expect(matchesNothing(query({ q: 'x', exCa: [] }))).toBe(false);
  });
});

describe('Paging with exact counts', () => {
  test('When start and len are any allowed pair, one page covers exactly the requested hits', () => {
    const bad: string[] = [];
    let largest = 0;
    for (let start = 0; start <= 990; start++) {
      for (let len = 10; len <= 100; len++) {
        const w = pageWindow(start, len);
        const first = (w.page - 1) * w.hitsPerPage;
        if (first + w.skip !== start || w.skip + len > w.hitsPerPage) bad.push(`${start}/${len}`);
        largest = Math.max(largest, w.hitsPerPage / len);
      }
    }
    expect(bad).toEqual([]);
    // worst case: start 99, len 100 → one page of 199 doc ids
    expect(largest).toBeLessThanOrEqual(2.3);
    expect(pageWindow(99, 100)).toEqual({ page: 1, hitsPerPage: 199, skip: 99 });
  });

  test('When the offset is page-aligned, the page is exactly len', () => {
    expect(pageWindow(0, 10)).toEqual({ page: 1, hitsPerPage: 10, skip: 0 });
    expect(pageWindow(990, 10)).toEqual({ page: 100, hitsPerPage: 10, skip: 0 });
    expect(pageWindow(15, 10)).toEqual({ page: 2, hitsPerPage: 13, skip: 2 });
  });

  test('When a search request is built, it asks page/hitsPerPage, doc_id only, all words, kor+eng', () => {
    const r = buildSearchRequest(query({ start: 15, sort: 1, ca: [5] }));
    expect(r).toEqual({
      q: 'hello',
      params: {
        filter: ['collection_id = "abcd1234"', 'categories IN [5]'],
        sort: ['score_regdate:desc', 'doc_seq:desc'],
        page: 2,
        hitsPerPage: 13,
        ...SEARCH_ASKS,
      },
      skip: 2,
      take: 10,
    });
  });

  test('When Meilisearch answers a page, the requested slice and the exact totalHits come back', () => {
    const r = buildSearchRequest(query({ start: 15 }));
    const hits = Array.from({ length: 13 }, (_, i) => ({ doc_id: String(100 + i) }));
    expect(readSearchResponse(r, { hits, totalHits: 12345 })).toEqual({
      numfound: 12345,
      docIds: ['102', '103', '104', '105', '106', '107', '108', '109', '110', '111'],
    });
    expect(() => readSearchResponse(r, { hits })).toThrow(/totalHits/);
  });
});

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
    expect(wanted.prefixSearch).toBe('disabled');
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
      prefixSearch: 'indexingTime',
      pagination: { maxTotalHits: 1000 },
    };
    expect(settingsToUpdate(defaults, wanted)).toEqual(wanted);
  });

  test('When only maxTotalHits differs, only pagination is updated', () => {
    expect(settingsToUpdate({ ...wanted, pagination: { maxTotalHits: 1000 } }, wanted)).toEqual({
      pagination: { maxTotalHits: 100000 },
    });
  });
});

describe('Outbox coalescing', () => {
  function row(
    id: number,
    docId: string,
    version: string,
    over: Partial<OutboxRow> = {},
  ): OutboxRow {
    return {
      id: String(id),
      op: 'upsert',
      collectionId: 'abcd1234',
      meiliId: 'abcd1234-x',
      docId,
      version,
      payload: { id: 'abcd1234-x', version } as never,
      force: false,
      isolate: false,
      attempts: 0,
      ...over,
    };
  }

  test('When versions are compared, documents.id comes first (a re-added doc is newer), exactly', () => {
    expect(compareVersions({ docId: '2', version: '1' }, { docId: '1', version: '99' })).toBe(1);
    expect(
      compareVersions(
        { docId: '9007199254740993', version: '1' },
        { docId: '9007199254740992', version: '1' },
      ),
    ).toBe(1);
    expect(compareVersions({ docId: '1', version: '3' }, { docId: '1', version: '3' })).toBe(0);
  });

  test('When a delete carries the version of the last upsert, it orders after that upsert', () => {
    expect(
      compareVersions({ docId: '1', version: '3', deleted: true }, { docId: '1', version: '3' }),
    ).toBe(1);
    expect(
      compareVersions({ docId: '2', version: '1' }, { docId: '1', version: '3', deleted: true }),
    ).toBe(1);
    const plan = planBatch(
      [row(1, '1', '3'), row(2, '1', '3', { op: 'delete', payload: null })],
      new Map(),
    );
    expect(plan.deletes.map((c) => c.winner.id)).toEqual(['2']);
    // the upsert of that version was applied already: the delete is still sent
    const applied = new Map([['abcd1234-x', { docId: '1', version: '3' }]]);
    expect(
      planBatch([row(2, '1', '3', { op: 'delete', payload: null })], applied).deletes,
    ).toHaveLength(1);
    // and once the delete is applied, a late upsert of that version is stale
    const deleted = new Map([['abcd1234-x', { docId: '1', version: '3', deleted: true }]]);
    expect(planBatch([row(1, '1', '3')], deleted).stale).toHaveLength(1);
  });

  test('When a batch holds several versions of a document, only the newest is sent', () => {
    const plan = planBatch([row(1, '1', '1'), row(2, '1', '3'), row(3, '1', '2')], new Map());
    expect(plan.upserts).toHaveLength(1);
    expect(plan.upserts[0]!.winner.id).toBe('2');
    expect(plan.upserts[0]!.rows.map((r) => r.id)).toEqual(['1', '2', '3']);
  });

  test('When the newest change is a delete, a delete is sent', () => {
    const plan = planBatch(
      [row(1, '1', '1'), row(2, '1', '2', { op: 'delete', payload: null })],
      new Map(),
    );
    expect(plan.upserts).toHaveLength(0);
    expect(plan.deletes.map((c) => c.winner.id)).toEqual(['2']);
  });

  test('When Meilisearch already holds that version or a newer one, nothing is sent', () => {
    const applied = new Map([['abcd1234-x', { docId: '1', version: '5' }]]);
    expect(planBatch([row(1, '1', '4')], applied).stale).toHaveLength(1);
    expect(planBatch([row(1, '1', '5')], applied).stale).toHaveLength(1);
    expect(planBatch([row(1, '1', '6')], applied).upserts).toHaveLength(1);
  });

  test('When a reindex row carries the applied version, it is sent again; an older one never', () => {
    const applied = new Map([['abcd1234-x', { docId: '1', version: '5' }]]);
    expect(planBatch([row(1, '1', '5', { force: true })], applied).upserts).toHaveLength(1);
    expect(planBatch([row(1, '1', '4', { force: true })], applied).stale).toHaveLength(1);
  });

  test('When retries back off, the delay doubles up to the cap, with jitter', () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 10, 20].map((a) => backoffMs(a, 500, 60000, mid))).toEqual([
      500, 1000, 2000, 4000, 60000, 60000,
    ]);
    expect(backoffMs(1, 500, 60000, () => 0)).toBe(400);
    expect(backoffMs(1, 500, 60000, () => 1)).toBe(600);
  });
});
