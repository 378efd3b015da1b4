import {
  createMeiliGateway,
  IndexWriteError,
  type MeiliGateway,
} from '../src/index/meilisearch/gateway';
import {
  buildSearchRequest,
  indexSettings,
  type MeiliDocument,
} from '../src/index/meilisearch/mapping';
import { SEARCH_ASKS } from './helpers/meili-search';
import { rejectionOf } from './helpers/rejection';
import { startMeiliStub, type MeiliStub } from './meili-stub';

let stub: MeiliStub;
let gateway: MeiliGateway;

beforeAll(async () => {
  stub = await startMeiliStub();
});
afterAll(() => stub.close());
beforeEach(() => {
  stub.reset();
  gateway = createMeiliGateway({
    url: stub.url,
    apiKey: 'master-key',
    indexUid: 'documents',
    requestTimeoutMs: 300,
    taskTimeoutMs: 500,
  });
});

function meiliDoc(id: string, version = '1'): MeiliDocument {
  return {
    id,
    collection_id: 'abcd1234',
    doc_id: '1',
    version,
    dockey: 'k',
    text: { title: 't', body: 'b', fields: {} },
    categories: [],
    score_regdate: 1,
  };
}

const rejection = (p: Promise<unknown>) => rejectionOf(p, IndexWriteError);

const calls = () =>
  stub.requests.filter((r) => !r.path.startsWith('/tasks/')).map((r) => `${r.method} ${r.path}`);

describe('Meilisearch request shapes', () => {
  test('When the index is new, it is created with primary key id and every setting is applied once', async () => {
    await expect(gateway.ensureIndex()).resolves.toEqual({
      created: true,
      updated: [
        'searchableAttributes',
        'filterableAttributes',
        'sortableAttributes',
        'rankingRules',
        'localizedAttributes',
        'typoTolerance',
        // prefixSearch: Meilisearch's default, indexingTime, is the one wanted
        'pagination',
        'faceting',
      ],
    });
    expect(calls()).toEqual([
      'POST /indexes',
      'GET /indexes/documents/settings',
      'PATCH /indexes/documents/settings',
    ]);
    expect(stub.requests[0]!.body).toEqual({ uid: 'documents', primaryKey: 'id' });
    expect(stub.requests[0]!.headers.authorization).toBe('Bearer master-key');
    const patch = stub.requests.find((r) => r.method === 'PATCH')!;
    const { prefixSearch: _unchanged, ...changed } = indexSettings(100000);
    expect(patch.body).toEqual(changed);
    // every enqueued task is waited for
    expect(stub.requests.filter((r) => r.path.startsWith('/tasks/')).length).toBeGreaterThanOrEqual(
      2,
    );

    stub.requests.length = 0;
    await expect(gateway.ensureIndex()).resolves.toEqual({ created: false, updated: [] });
    expect(calls()).toEqual(['POST /indexes', 'GET /indexes/documents/settings']);
  });

  test('When documents are upserted, they are added or replaced with primaryKey=id and the task is awaited', async () => {
    await gateway.upsert([meiliDoc('abcd1234-a'), meiliDoc('abcd1234-b')]);
    const add = stub.requests.find((r) => r.path === '/indexes/documents/documents')!;
    expect(add.method).toBe('POST');
    expect(add.query).toEqual({ primaryKey: 'id' });
    expect(add.body).toEqual([meiliDoc('abcd1234-a'), meiliDoc('abcd1234-b')]);
    expect(stub.documents().get('abcd1234-b')).toEqual(meiliDoc('abcd1234-b'));
    expect(stub.requests.some((r) => r.method === 'GET' && r.path.startsWith('/tasks/'))).toBe(
      true,
    );
  });

  test('When documents are deleted, ids go to delete-batch; a collection is purged by filter', async () => {
    await gateway.upsert([meiliDoc('abcd1234-a'), meiliDoc('abcd1234-b')]);
    stub.requests.length = 0;
    await gateway.remove(['abcd1234-a']);
    await gateway.purgeCollection('abcd1234');
    expect(calls()).toEqual([
      'POST /indexes/documents/documents/delete-batch',
      'POST /indexes/documents/documents/delete',
    ]);
    expect(stub.requests[0]!.body).toEqual(['abcd1234-a']);
    expect(stub.requests.find((r) => r.path.endsWith('/documents/delete'))!.body).toEqual({
      filter: 'collection_id = "abcd1234"',
    });
    expect(stub.documents().size).toBe(0);
  });

  test('When a search is made, the body carries filter, sort, page/hitsPerPage, doc_id only, all words', async () => {
    stub.searchHandler = () => ({
      hits: Array.from({ length: 13 }, (_, i) => ({ doc_id: String(i + 1) })),
      totalHits: 4321,
      page: 2,
      hitsPerPage: 13,
      totalPages: 333,
      processingTimeMs: 1,
      query: 'q',
    });
    const request = buildSearchRequest({
      collectionId: 'abcd1234',
      q: '검색 words',
      start: 15,
      len: 10,
      ca: [1, 2],
      exCa: [3],
      sort: 1,
      startdate: '10',
      enddate: '20',
    });
    await expect(gateway.search(request)).resolves.toEqual({
      numfound: 4321,
      docIds: ['3', '4', '5', '6', '7', '8', '9', '10', '11', '12'],
    });
    const search = stub.requests.find((r) => r.path === '/indexes/documents/search')!;
    expect(search.method).toBe('POST');
    expect(search.body).toEqual({
      q: '검색 words ',
      filter: [
        'collection_id = "abcd1234"',
        'categories IN [1, 2]',
        'NOT categories IN [3]',
        'score_regdate >= 10',
        'score_regdate <= 20',
      ],
      sort: ['score_regdate:desc', 'doc_seq:desc'],
      page: 2,
      hitsPerPage: 13,
      ...SEARCH_ASKS,
    });
  });

  /** a search of q with every other parameter at its default */
  const searchOf = (q: string) => ({
    collectionId: 'abcd1234',
    q,
    start: 0,
    len: 10,
    ca: null,
    exCa: null,
    sort: 0 as const,
    startdate: null,
    enddate: null,
  });

  test('Without prefix=1, q ends with a space, so Meilisearch matches its last word whole', () => {
    const query = searchOf('sea 서울에서');
    expect(buildSearchRequest(query).q).toBe('sea 서울 ');
    expect(buildSearchRequest({ ...query, prefix: false }).q).toBe('sea 서울 ');
    expect(buildSearchRequest({ ...query, q: '!?' }).q).toBe('!? ');
  });

  test('With prefix=1, q is sent as stemmed, its last word a prefix (the index keeps prefix search)', () => {
    const query = { ...searchOf('sea 서'), ca: [3], facet: 'categories' as const, prefix: true };
    const request = buildSearchRequest(query);
    expect(request.q).toBe('sea 서');
    expect(request.facetSearch?.q).toBe('sea 서');
    expect(indexSettings(1000).prefixSearch).toBe('indexingTime');
  });

  test('When a search lists 100,000 categories, the request names each distinct category once', async () => {
    stub.searchHandler = () => ({ hits: [], totalHits: 0, page: 1, hitsPerPage: 10 });
    const ca = Array.from({ length: 100_000 }, (_, i) => 1000 + (i % 250));
    const request = buildSearchRequest({
      collectionId: 'abcd1234',
      q: 'words',
      start: 0,
      len: 10,
      ca,
      exCa: null,
      sort: 0,
      startdate: null,
      enddate: null,
    });
    await expect(gateway.search(request)).resolves.toEqual({ numfound: 0, docIds: [] });
    const search = stub.requests.find((r) => r.path === '/indexes/documents/search')!;
    expect((search.body as { filter: string[] }).filter).toEqual([
      'collection_id = "abcd1234"',
      `categories IN [${Array.from({ length: 250 }, (_, i) => 1000 + i).join(', ')}]`,
    ]);
  });

  const facetQuery = {
    collectionId: 'abcd1234',
    q: 'words',
    start: 0,
    len: 10,
    ca: null,
    exCa: [3],
    sort: 0 as const,
    startdate: '10',
    enddate: null,
    facet: 'categories' as const,
  };

  test('When facet=categories is asked without ca, the one search asks for the categories facet and its distribution is the counts', async () => {
    stub.searchHandler = () => ({
      hits: [{ doc_id: '7' }],
      totalHits: 321,
      page: 1,
      hitsPerPage: 10,
      facetDistribution: { categories: { '3': 300, '12': 21, '40': 0 } },
    });
    await expect(gateway.search(buildSearchRequest(facetQuery))).resolves.toEqual({
      numfound: 321,
      docIds: ['7'],
      categoryCounts: new Map([
        [3, 300],
        [12, 21],
      ]),
    });
    expect(calls()).toEqual(['POST /indexes/documents/search']);
    expect(stub.requests[0]!.body).toEqual({
      q: 'words ',
      filter: ['collection_id = "abcd1234"', 'NOT categories IN [3]', 'score_regdate >= 10'],
      page: 1,
      hitsPerPage: 10,
      facets: ['categories'],
      ...SEARCH_ASKS,
    });
  });

  test('When facet=categories is asked with ca, one multi-search sends the search and a search without ca for the counts (no hits)', async () => {
    stub.searchHandler = (_uid, body) =>
      body.hitsPerPage === 0
        ? { hits: [], totalHits: 50, facetDistribution: { categories: { '1': 20, '2': 45 } } }
        : { hits: [{ doc_id: '9' }], totalHits: 20, page: 1, hitsPerPage: 10 };
    await expect(
      gateway.search(buildSearchRequest({ ...facetQuery, ca: [1, 1], sort: 1 })),
    ).resolves.toEqual({
      numfound: 20,
      docIds: ['9'],
      categoryCounts: new Map([
        [1, 20],
        [2, 45],
      ]),
    });
    expect(calls()).toEqual(['POST /multi-search']);
    const base = ['collection_id = "abcd1234"'];
    const rest = ['NOT categories IN [3]', 'score_regdate >= 10'];
    expect(stub.requests[0]!.body).toEqual({
      queries: [
        {
          indexUid: 'documents',
          q: 'words ',
          filter: [...base, 'categories IN [1]', ...rest],
          sort: ['score_regdate:desc', 'doc_seq:desc'],
          page: 1,
          hitsPerPage: 10,
          ...SEARCH_ASKS,
        },
        {
          indexUid: 'documents',
          q: 'words ',
          filter: [...base, ...rest],
          page: 1,
          hitsPerPage: 0,
          facets: ['categories'],
          matchingStrategy: 'all',
          locales: ['kor', 'eng'],
        },
      ],
    });
  });

  test('When facet=categories with ca and hl=1 are asked, only the hits search asks for highlights', async () => {
    stub.searchHandler = (_uid, body) =>
      body.hitsPerPage === 0
        ? { hits: [], totalHits: 1, facetDistribution: { categories: { '1': 1 } } }
        : { hits: [], totalHits: 0, page: 1, hitsPerPage: 10 };
    await gateway.search(buildSearchRequest({ ...facetQuery, ca: [2], highlight: true }));
    const [hits, facets] = (stub.requests[0]!.body as { queries: Array<Record<string, unknown>> })
      .queries;
    expect(hits).toMatchObject({ attributesToHighlight: ['text.title', 'text.body'] });
    expect(Object.keys(facets!).filter((k) => /highlight|crop/i.test(k))).toEqual([]);
  });

  test('When Meilisearch answers a facet search without facetDistribution or with a value that is no category, the search fails', async () => {
    stub.searchHandler = () => ({ hits: [], totalHits: 0, page: 1, hitsPerPage: 10 });
    await expect(gateway.search(buildSearchRequest(facetQuery))).rejects.toThrow(
      'Meilisearch answered without facetDistribution',
    );
    stub.searchHandler = () => ({
      hits: [],
      totalHits: 0,
      facetDistribution: { categories: { '1.5': 2 } },
    });
    await expect(gateway.search(buildSearchRequest(facetQuery))).rejects.toThrow(
      'Meilisearch answered a category count 1.5: 2',
    );
  });

  test('When the stub is asked for a facet that is not filterable, it refuses as Meilisearch does (the engine declares categories filterable)', async () => {
    stub.searchHandler = null; // the naive search
    await gateway.ensureIndex();
    await gateway.upsert([{ ...meiliDoc('abcd1234-a'), categories: [5, 5, 6] }]);
    const request = buildSearchRequest({ ...facetQuery, q: 't', exCa: null, startdate: null });
    await expect(gateway.search(request)).resolves.toMatchObject({
      numfound: 1,
      categoryCounts: new Map([
        [5, 1],
        [6, 1],
      ]),
    });
    expect(stub.settings().faceting).toEqual({ maxValuesPerFacet: 10_000 });
    stub.settings().filterableAttributes = ['collection_id'];
    await expect(gateway.search(request)).rejects.toThrow(/not filterable/);
  });

  test('When reindex lists a collection, documents/fetch is asked by filter for id, dockey, doc_id and version', async () => {
    await gateway.upsert([meiliDoc('abcd1234-a', '7')]);
    await expect(gateway.listDocuments('abcd1234', 0, 1000)).resolves.toEqual({
      total: 1,
      results: [{ id: 'abcd1234-a', dockey: 'k', doc_id: '1', version: '7' }],
    });
    expect(stub.requests.at(-1)!.body).toEqual({
      filter: 'collection_id = "abcd1234"',
      fields: ['id', 'dockey', 'doc_id', 'version'],
      offset: 0,
      limit: 1000,
    });
  });
});

describe('Meilisearch failures', () => {
  test('When Meilisearch answers 5xx, the write fails as transient', async () => {
    stub.failRequests(1, 503);
    const err = await rejection(gateway.upsert([meiliDoc('abcd1234-a')]));
    expect(err.kind).toBe('transient');
    expect(err.message).toMatch(/503/);
  });

  test('When Meilisearch refuses the request (4xx), the write is rejected', async () => {
    const bad = { ...meiliDoc('abcd1234-a'), id: 'bad id!' };
    const err = await rejection(gateway.upsert([bad]));
    expect(err.kind).toBe('rejected');
  });

  test('When the task fails on the content, the write is rejected; on an internal error, transient', async () => {
    stub.failTasks(1, 'invalid_request');
    expect((await rejection(gateway.upsert([meiliDoc('abcd1234-a')]))).kind).toBe('rejected');
    stub.failTasks(1, 'internal');
    expect((await rejection(gateway.upsert([meiliDoc('abcd1234-a')]))).kind).toBe('transient');
  });

  test('When a request hangs, it times out as transient', async () => {
    stub.hangRequests(1, (r) => r.path === '/indexes/documents/documents');
    const started = Date.now();
    const err = await rejection(gateway.upsert([meiliDoc('abcd1234-a')]));
    expect(err.kind).toBe('transient');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test('When a task never finishes, waiting times out as transient', async () => {
    stub.taskDelayMs = 1500;
    const err = await rejection(gateway.upsert([meiliDoc('abcd1234-a')]));
    expect(err.kind).toBe('transient');
    stub.taskDelayMs = 0;
    await new Promise((r) => setTimeout(r, 1600));
  });

  test('When Meilisearch is down, health and writes fail', async () => {
    stub.down = true;
    await expect(gateway.health()).rejects.toThrow();
    expect((await rejection(gateway.remove(['abcd1234-a']))).kind).toBe('transient');
    stub.down = false;
    await expect(gateway.health()).resolves.toBeUndefined();
  });
});
