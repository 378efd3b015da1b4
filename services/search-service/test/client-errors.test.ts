import type { SearchClient } from '@hub/client' with { 'resolution-mode': 'import' };
import { SEARCH_ERRORS, SEARCH_HTTP_ERRORS } from '@hub/contracts';
import { runClientReadme } from '@hub/testing';
import { clientDoc as doc, useClientTest, type ClientModule } from './helpers/client';

let url: string;
let lib: ClientModule;
const { collection } = useClientTest((t) => ({ url, lib } = t));

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

  it('A path that is no operation answers the HTTP-level 404 row: a SearchHttpError notFound', async () => {
    const { c } = await collection();
    const elsewhere = new lib.SearchClient({
      baseUrl: `${url}/nowhere`,
      cid: c.cid,
      apikey: c.apikey,
    });
    const error = await elsewhere.status().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(lib.SearchHttpError);
    expect(error).toMatchObject({ code: 'notFound', ...SEARCH_HTTP_ERRORS.notFound });
  });

  it('A search option beyond the spec that the service refuses is a SearchHttpError of its row', async () => {
    const { search } = await collection();
    const error = await search
      .search({ q: 'a', facet: 'bad' as 'categories' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(lib.SearchHttpError);
    expect(error).toMatchObject({ code: 'facetInvalid', ...SEARCH_HTTP_ERRORS.facetInvalid });
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
