import { parseDoc, type ParsedDoc } from '@hub/contracts';
import type { DocumentChange, SearchQuery } from '../src/index/search-index';
import {
  buildFilter,
  buildSearchRequest,
  buildSort,
  filterString,
  matchesNothing,
  meiliDocumentId,
  pageWindow,
  readSearchResponse,
  toMeiliDocument,
} from '../src/index/meilisearch/mapping';
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

  test('When ca or ex_ca repeats a value, the filter names it once', () => {
    const ca = Array.from({ length: 100_000 }, (_, i) => [7, 2, 7, 4][i % 4]!);
    expect(buildFilter(query({ ca, exCa: [3, 3, 5, 3] }))).toEqual([
      'collection_id = "abcd1234"',
      'categories IN [7, 2, 4]',
      'NOT categories IN [3, 5]',
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
      q: 'hello ',
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
