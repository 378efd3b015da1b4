import type { SearchClient } from '@hub/client' with { 'resolution-mode': 'import' };
import { SEARCH_ERRORS } from '@hub/contracts';
import { listen, runClientReadme } from '@hub/testing';
import type { SearchApp } from '../src/app';
import { closeAfterAll, newCollection, useSearchApp } from './helpers/harness';
import { type TestCollection } from './helpers/requests';

// The client is ESM: loaded with import() (jest maps it to its TypeScript sources).
type ClientModule = typeof import('@hub/client', { with: { 'resolution-mode': 'import' } });
const loadClient = (): Promise<ClientModule> => import('@hub/client');

const BIG = 9223372036854775807n;
const SMALL = -9223372036854775808n;

let app: SearchApp;
let url: string;
let lib: ClientModule;
useSearchApp((t) => ({ app } = t));
beforeAll(async () => {
  const server = await listen(app);
  closeAfterAll(server.close);
  url = server.url;
  lib = await loadClient();
});

async function collection(
  limits: { max_documents?: number } = {},
): Promise<{ c: TestCollection; search: SearchClient }> {
  const c = await newCollection(app, limits);
  return { c, search: new lib.SearchClient({ baseUrl: url, cid: c.cid, apikey: c.apikey }) };
}

function doc(extra: Record<string, unknown> = {}) {
  return {
    icontents_title: '서울의 가을 산책길',
    icontents_body: '단풍이 아름다운 산책 코스',
    score_regdate: 1700000000,
    ...extra,
  };
}

describe('search-service through @hub/client', () => {
  it('A document added with int64 scores is found with every digit exact (bigint)', async () => {
    const { search } = await collection();
    await search.add({
      dockey: 'k1',
      doc: { ...doc(), score_big: BIG, score_small: SMALL, categories: [1, 2147483647] },
    });
    const result = await search.search({ q: '가을' });
    expect({ ...result, querytime: 0 }).toEqual({
      querytime: 0,
      start: 0,
      numfound: 1,
      docs: [
        {
          dockey: 'k1',
          icontents_title: '서울의 가을 산책길',
          icontents_body: '단풍이 아름다운 산책 코스',
          score_regdate: 1700000000n,
          score_big: BIG,
          score_small: SMALL,
          categories: [1, 2147483647],
        },
      ],
    });
    expect(typeof result.querytime).toBe('number');
  });

  it('A doc given as JSON text is sent as is, big numbers included', async () => {
    const { search } = await collection();
    const text =
      '{"icontents_title":"raw","icontents_body":"b","score_regdate":1,"score_x":123456789012345678}';
    await search.add({ dockey: 'raw', doc: text });
    const [found] = (await search.search({ q: 'raw' })).docs;
    expect(found?.score_x).toBe(123456789012345678n);
  });

  it('Form encoding carries spaces, &, +, = and Korean in dockey and q unchanged', async () => {
    const { search } = await collection();
    const dockey = 'a b&c+d=e/서울?%';
    await search.add({ dockey, doc: doc({ icontents_title: 'C++ & 서울 맛집' }) });
    const result = await search.search({ q: 'c 맛집' });
    expect(result.docs.map((d) => d.dockey)).toEqual([dockey]);
    expect(result.docs[0]?.icontents_title).toBe('C++ & 서울 맛집');
    await search.delete({ dockey });
    expect((await search.status()).document_count).toBe(0);
  });

  it('Update replaces the document: fields left out are removed', async () => {
    const { search } = await collection();
    await search.add({ dockey: 'k', doc: doc({ contents_url: 'https://x', score_a: 1 }) });
    await search.update({ dockey: 'k', doc: doc({ icontents_title: 'new 가을' }) });
    const [found] = (await search.search({ q: '가을' })).docs;
    expect(found).toEqual({
      dockey: 'k',
      icontents_title: 'new 가을',
      icontents_body: '단풍이 아름다운 산책 코스',
      score_regdate: 1700000000n,
      categories: [],
    });
  });

  it('A field update sets an int64 score exactly', async () => {
    const { search } = await collection();
    await search.add({ dockey: 'k', doc: doc({ score_views: 1 }) });
    await search.updateField({ dockey: 'k', fieldname: 'score_views', fieldvalue: SMALL });
    expect((await search.search({ q: '가을' })).docs[0]?.score_views).toBe(SMALL);
    await search.updateField({ dockey: 'k', fieldname: 'score_views', fieldvalue: 7 });
    expect((await search.search({ q: '가을' })).docs[0]?.score_views).toBe(7n);
  });

  it('Search options reach the service: ca, ex_ca, sort, dates, start and len', async () => {
    const { search } = await collection();
    for (let i = 1; i <= 12; i++) {
      await search.add({
        dockey: `d${i}`,
        doc: doc({ score_regdate: 1700000000 + i, categories: [i % 3] }),
      });
    }
    const keys = async (options: Omit<Parameters<SearchClient['search']>[0], 'q'>) =>
      (await search.search({ q: '가을', ...options })).docs.map((d) => d.dockey);
    expect(await keys({ ca: [0], sort: 1 })).toEqual(['d12', 'd9', 'd6', 'd3']);
    expect(await keys({ ex_ca: [0, 1], sort: 1 })).toEqual(['d11', 'd8', 'd5', 'd2']);
    expect(
      await keys({ startdate: 1700000010, enddate: new Date(1700000011 * 1000), sort: 1 }),
    ).toEqual(['d11', 'd10']);
    const page = await search.search({ q: '가을', sort: 1, start: 10, len: 10 });
    expect({ start: page.start, numfound: page.numfound }).toEqual({ start: 10, numfound: 12 });
    expect(page.docs.map((d) => d.dockey)).toEqual(['d2', 'd1']);
  });

  it('Status answers search_status and document_count', async () => {
    const { search } = await collection();
    await search.add({ dockey: 'a', doc: doc() });
    await search.add({ dockey: 'b', doc: doc() });
    expect(await search.status()).toEqual({ search_status: 'true', document_count: 2 });
  });

  it('At the maximum, add throws index max reached; with force the oldest document goes', async () => {
    const { search } = await collection({ max_documents: 1 });
    await search.add({ dockey: 'old', doc: doc() });
    const error = await search.add({ dockey: 'new', doc: doc() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(lib.SearchError);
    expect(error).toMatchObject({
      contract: SEARCH_ERRORS.add.indexMaxReached,
      code: 'indexMaxReached',
    });
    await search.add({ dockey: 'new', doc: doc(), force: true });
    expect((await search.search({ q: '가을' })).docs.map((d) => d.dockey)).toEqual(['new']);
  });
});

describe('Errors through @hub/client are the contract rows', () => {
  it.each([
    [
      'add of a dockey in use',
      SEARCH_ERRORS.add.alreadyExists,
      'alreadyExists',
      (s: SearchClient) => s.add({ dockey: 'k', doc: doc() }),
    ],
    [
      'update without a title',
      SEARCH_ERRORS.update.titleEmpty,
      'titleEmpty',
      (s: SearchClient) => s.update({ dockey: 'k', doc: doc({ icontents_title: ' ' }) }),
    ],
    [
      'update of an unknown dockey',
      SEARCH_ERRORS.update.dockeyInvalid,
      'dockeyInvalid',
      (s: SearchClient) => s.update({ dockey: 'nope', doc: doc() }),
    ],
    [
      'delete of an unknown dockey',
      SEARCH_ERRORS.delete.dockeyInvalid,
      'dockeyInvalid',
      (s: SearchClient) => s.delete({ dockey: 'nope' }),
    ],
    [
      'field update of a blank dockey',
      SEARCH_ERRORS.fieldUpdate.dockeyEmpty,
      'dockeyEmpty',
      (s: SearchClient) => s.updateField({ dockey: ' ', fieldname: 'score_a', fieldvalue: 1 }),
    ],
    [
      'field update of a contents field',
      SEARCH_ERRORS.fieldUpdate.fieldtypeInvalid,
      'fieldtypeInvalid',
      (s: SearchClient) =>
        s.updateField({ dockey: 'k', fieldname: 'contents_url' as 'score_x', fieldvalue: 1 }),
    ],
    [
      'search with len 5',
      SEARCH_ERRORS.search.lenInvalid,
      'lenInvalid',
      (s: SearchClient) => s.search({ q: 'a', len: 5 }),
    ],
    [
      'search with 11 ex_ca entries',
      SEARCH_ERRORS.search.exCaInvalid,
      'exCaInvalid',
      (s: SearchClient) => s.search({ q: 'a', ex_ca: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] }),
    ],
    [
      'search of a blank q',
      SEARCH_ERRORS.search.qNull,
      'qNull',
      (s: SearchClient) => s.search({ q: '  ' }),
    ],
  ])('%s throws the SearchError of its row', async (_name, row, code, act) => {
    const { search } = await collection();
    await search.add({ dockey: 'k', doc: doc() });
    const error = await act(search).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(lib.SearchError);
    expect(error).toMatchObject({
      name: 'SearchError',
      status: row.status,
      text: row.text,
      message: row.text,
      body: row.text,
      code,
      operation: row.operation,
      contract: row,
    });
  });

  it('A wrong API key is apikey is invalid (401), an unknown collection cid is invalid (404)', async () => {
    const { c } = await collection();
    const wrongKey = new lib.SearchClient({ baseUrl: url, cid: c.cid, apikey: 'f'.repeat(32) });
    await expect(wrongKey.status()).rejects.toMatchObject({
      contract: SEARCH_ERRORS.common.apikeyInvalid,
    });
    const unknown = new lib.SearchClient({ baseUrl: url, cid: 'zzzz9999', apikey: c.apikey });
    await expect(unknown.search({ q: 'a' })).rejects.toMatchObject({
      contract: SEARCH_ERRORS.common.cidInvalid,
    });
    const noKey = new lib.SearchClient({ baseUrl: url, cid: c.cid, apikey: '' });
    await expect(noKey.delete({ dockey: 'k' })).rejects.toMatchObject({
      contract: SEARCH_ERRORS.common.apikeyNull,
    });
  });

  it('An HTTP-level answer of no contract row is an UnexpectedResponseError', async () => {
    const { c } = await collection();
    const elsewhere = new lib.SearchClient({
      baseUrl: `${url}/nowhere`,
      cid: c.cid,
      apikey: c.apikey,
    });
    const error = await elsewhere.status().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(lib.UnexpectedResponseError);
    expect(error).toMatchObject({ status: 404, body: 'not found' });
  });
});

describe('The client README examples (search) run against the search-service', () => {
  it('Every search example runs and prints what its comment says', async () => {
    const { c } = await collection();
    const { printed, expected } = await runClientReadme('search', {
      client: lib,
      env: { SEARCH_CID: c.cid, SEARCH_APIKEY: c.apikey },
      addresses: { 'http://127.0.0.1:8081': url },
    });
    expect(printed).toEqual(expected);
    expect(printed.length).toBeGreaterThanOrEqual(4);
  });
});
