import { SEARCH_ERRORS } from '../../contracts/src/search/errors';
import { SearchError, UnexpectedResponseError } from '../src/errors';
import { FAKE_APIKEY, fakeFetch, fakeSearchClient } from './fake-fetch';

const FORM = 'application/x-www-form-urlencoded;charset=UTF-8';
const KEY = FAKE_APIKEY;
const OK = { status: 200, body: 'OK', headers: { 'Content-Type': 'text/plain; charset=utf-8' } };
const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8' };

function client(...answers: Parameters<typeof fakeFetch>) {
  return fakeSearchClient(answers);
}

describe('SearchClient', () => {
  it('Writes send apikey and parameters as a UTF-8 form body', async () => {
    const { fetch, search } = client(OK, OK, OK, OK);
    await search.add({
      dockey: 'k 1&',
      doc: {
        icontents_title: '서울',
        icontents_body: 'b',
        score_regdate: 1700000000,
        score_big: 2n ** 63n - 1n,
      },
      force: true,
    });
    await search.update({ dockey: 'k', doc: '{"raw":1}' });
    await search.updateField({ dockey: 'k', fieldname: 'score_big', fieldvalue: -(2n ** 63n) });
    await search.delete({ dockey: 'k' });
    expect(fetch.calls).toEqual([
      {
        url: 'http://h/index/v2/abcd1234/docs',
        method: 'POST',
        headers: { 'Content-Type': FORM },
        body:
          `apikey=${KEY}&dockey=k+1%26&doc=` +
          encodeURIComponent(
            '{"icontents_title":"서울","icontents_body":"b","score_regdate":1700000000,"score_big":9223372036854775807}',
          ) +
          '&force=1',
      },
      {
        url: 'http://h/index/v2/abcd1234/docs',
        method: 'PUT',
        headers: { 'Content-Type': FORM },
        body: `apikey=${KEY}&dockey=k&doc=%7B%22raw%22%3A1%7D`,
      },
      {
        url: 'http://h/index/v2/abcd1234/docs/fields',
        method: 'PUT',
        headers: { 'Content-Type': FORM },
        body: `apikey=${KEY}&dockey=k&fieldname=score_big&fieldvalue=-9223372036854775808`,
      },
      {
        url: 'http://h/index/v2/abcd1234/docs',
        method: 'DELETE',
        headers: { 'Content-Type': FORM },
        body: `apikey=${KEY}&dockey=k`,
      },
    ]);
  });

  it('Search sends its parameters in the query string of {search_url} and keeps int64 exact', async () => {
    const body =
      '{"querytime":3,"start":0,"numfound":1,"docs":[{"dockey":"k","icontents_title":"1e3 9223372036854775807",' +
      '"score_regdate":1700000000,"score_big":9223372036854775807,"score_neg":-5,"categories":[1,2147483647]}]}';
    const { fetch, search } = client({ status: 200, body, headers: JSON_HEADERS });
    const result = await search.search({
      q: '서울 맛집',
      start: 10,
      len: 20,
      ca: [1, 2],
      ex_ca: [3],
      sort: 1,
      startdate: new Date(Date.UTC(2023, 10, 14, 22, 13, 20, 999)),
      enddate: 1800000000,
    });
    expect(fetch.calls[0]).toEqual({
      url:
        `http://s/v2/abcd1234/search/json?apikey=${KEY}&q=%EC%84%9C%EC%9A%B8+%EB%A7%9B%EC%A7%91` +
        '&start=10&len=20&ca=1%2C2&ex_ca=3&sort=1&startdate=1700000000&enddate=1800000000',
      method: 'GET',
      headers: { Accept: 'application/json' },
    });
    expect(result).toEqual({
      querytime: 3,
      start: 0,
      numfound: 1,
      docs: [
        {
          dockey: 'k',
          icontents_title: '1e3 9223372036854775807',
          score_regdate: 1700000000n,
          score_big: 9223372036854775807n,
          score_neg: -5n,
          categories: [1, 2147483647],
        },
      ],
    });
  });

  it('Search with facet: categories sends facet=categories and reads the counts as numbers', async () => {
    const body =
      '{"querytime":1,"start":0,"numfound":2,"docs":[],"facets":{"categories":{"3":120,"2147483647":1}}}';
    const { fetch, search } = client({ status: 200, body, headers: JSON_HEADERS });
    const result = await search.search({ q: 'q', ca: [3], facet: 'categories' });
    expect(fetch.calls[0]!.url).toBe(
      `http://s/v2/abcd1234/search/json?apikey=${KEY}&q=q&ca=3&facet=categories`,
    );
    expect(result.facets).toEqual({ categories: { '3': 120, '2147483647': 1 } });
  });

  it('Search with hl sends hl=1 and the tags, and reads the highlight fields', async () => {
    const body =
      '{"querytime":1,"start":0,"numfound":1,"docs":[{"dockey":"k","icontents_title":"a <b>",' +
      '"categories":[],"highlight_title":"<em>a</em> &lt;b&gt;","highlight_body":"b"}]}';
    const json = { status: 200, body, headers: JSON_HEADERS };
    const { fetch, search } = client(json, json, json);
    const result = await search.search({ q: 'a', hl: true, hl_pre: '[', hl_post: ']' });
    expect(result.docs[0]?.highlight_title).toBe('<em>a</em> &lt;b&gt;');
    await search.search({ q: 'a', hl: false, hl_pre: '[' });
    await search.search({ q: 'a', hl_pre: '[' });
    expect(fetch.calls.map((c) => c.url.split('&').slice(2).join('&'))).toEqual([
      'hl=1&hl_pre=%5B&hl_post=%5D',
      'hl=0',
      '',
    ]);
  });

  it('Search with prefix: true sends prefix=1; prefix: false sends prefix=0; none sends nothing', async () => {
    const body = '{"querytime":1,"start":0,"numfound":0,"docs":[]}';
    const ok = { status: 200, body, headers: JSON_HEADERS };
    const { fetch, search } = client(ok, ok, ok);
    await search.search({ q: 'sea', prefix: true });
    await search.search({ q: 'sea', prefix: false });
    await search.search({ q: 'sea' });
    expect(fetch.calls.map((c) => c.url)).toEqual([
      `http://s/v2/abcd1234/search/json?apikey=${KEY}&q=sea&prefix=1`,
      `http://s/v2/abcd1234/search/json?apikey=${KEY}&q=sea&prefix=0`,
      `http://s/v2/abcd1234/search/json?apikey=${KEY}&q=sea`,
    ]);
  });

  it('Status reads {base_url}/v2/{cid}/status/json', async () => {
    const body = '{"search_status":"true","document_count":5}';
    const { fetch, search } = client({ status: 200, body, headers: JSON_HEADERS });
    expect(await search.status()).toEqual({ search_status: 'true', document_count: 5 });
    expect(fetch.calls[0]!.url).toBe(`http://h/index/v2/abcd1234/status/json?apikey=${KEY}`);
  });

  it('An error is the SearchError of the operation table row with that status and text', async () => {
    const { search } = client(
      { status: 406, body: 'document is already exists' },
      { status: 404, body: 'dockey is empty' },
      { status: 401, body: 'apikey is invalid' },
    );
    const error = await search.add({ dockey: 'k', doc: '{}' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SearchError);
    expect(error).toMatchObject({
      name: 'SearchError',
      status: 406,
      text: 'document is already exists',
      message: 'document is already exists',
      code: 'alreadyExists',
      operation: 'add',
      contract: SEARCH_ERRORS.add.alreadyExists,
    });
    expect((error as SearchError).is(SEARCH_ERRORS.add.alreadyExists)).toBe(true);
    await expect(
      search.updateField({ dockey: ' ', fieldname: 'score_a', fieldvalue: 1 }),
    ).rejects.toMatchObject({ contract: SEARCH_ERRORS.fieldUpdate.dockeyEmpty });
    await expect(search.status()).rejects.toMatchObject({
      contract: SEARCH_ERRORS.common.apikeyInvalid,
    });
  });

  it('A text of another table or status, or an answer of no row (a proxy’s 502), is an UnexpectedResponseError', async () => {
    const { search } = client(
      { status: 404, body: 'dockey is empty' },
      { status: 400, body: 'dockey is invalid' },
      { status: 502, body: 'Bad Gateway' },
      { status: 400, body: 'too many requests' },
    );
    for (let i = 0; i < 4; i++) {
      await expect(search.delete({ dockey: 'k' })).rejects.toBeInstanceOf(UnexpectedResponseError);
    }
  });

  it('A score given as an unsafe number is refused before any request', async () => {
    const { fetch, search } = client();
    await expect(
      search.updateField({ dockey: 'k', fieldname: 'score_a', fieldvalue: 2 ** 60 }),
    ).rejects.toThrow(RangeError);
    expect(fetch.calls).toEqual([]);
  });
});
