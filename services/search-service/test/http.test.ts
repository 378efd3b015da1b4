import zlib from 'node:zlib';
import request from 'supertest';
import { SEARCH_ERRORS } from '@hub/contracts';
import type { SearchApp } from '../src/app';
import { makeApp, useSearchApp } from './helpers/harness';
import { client, docJson, type TestCollection } from './helpers/requests';

/** What happens before the contract checks: paths, methods, bodies, content types. */

let app: SearchApp;
let c: TestCollection;
const db = useSearchApp((t) => ({ app, c } = t), {
  env: { SEARCH_MAX_BODY_BYTES: '8192' },
  collection: true,
});
beforeAll(() => client(app, c).add('existing', docJson({ icontents_title: 'hello' })));

/** A form body, sent as is (bytes or text), to /v2/{cid}/docs with these headers besides. */
function rawForm(
  method: 'post' | 'put',
  body: Buffer | string,
  headers: Record<string, string> = {},
): request.Test {
  const agent = request(app);
  return agent[method](`/v2/${c.cid}/docs`)
    .set({ 'Content-Type': 'application/x-www-form-urlencoded', ...headers })
    .serialize((b) => b)
    .send(body);
}

test('When a path is not an operation of the service, the answer is 404 not found (text/plain)', async () => {
  for (const path of [
    '/index.html',
    '/docs/assets/index.html',
    '/v2',
    `/v2/${c.cid}`,
    `/v2/${c.cid}/search`,
    `/v3/${c.cid}/docs`,
    '/favicon.ico',
  ]) {
    const res = await request(app).get(path);
    expect([path, res.status, res.text]).toEqual([path, 404, 'not found']);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
  }
});

test('When a method is not the operation’s method, the answer is 405 with an Allow header', async () => {
  const cases: Array<[string, 'get' | 'post' | 'put' | 'delete' | 'patch', string]> = [
    [`/v2/${c.cid}/docs`, 'get', 'POST, PUT, DELETE'],
    [`/v2/${c.cid}/docs`, 'patch', 'POST, PUT, DELETE'],
    [`/v2/${c.cid}/docs/fields`, 'post', 'PUT'],
    [`/v2/${c.cid}/search/json`, 'post', 'GET, HEAD'],
    [`/v2/${c.cid}/status/json`, 'delete', 'GET, HEAD'],
  ];
  for (const [path, method, allow] of cases) {
    const res = await request(app)[method](path);
    expect([path, method, res.status, res.text, res.headers.allow]).toEqual([
      path,
      method,
      405,
      'method not allowed',
      allow,
    ]);
  }
});

test('When a body is larger than SEARCH_MAX_BODY_BYTES, the answer is 413', async () => {
  const res = await request(app)
    .post(`/v2/${c.cid}/docs`)
    .type('form')
    .send(`apikey=${c.apikey}&dockey=big&doc=${'x'.repeat(9000)}`);
  expect([res.status, res.text]).toEqual([413, 'request body too large']);
});

test('When a body is not a form, the answer is 415; a form with a charset other than UTF-8 is invalid encoding', async () => {
  let res = await request(app)
    .post(`/v2/${c.cid}/docs`)
    .set('Content-Type', 'application/json')
    .send(JSON.stringify({ apikey: c.apikey }));
  expect([res.status, res.text]).toEqual([415, 'unsupported media type']);
  res = await request(app)
    .post(`/v2/${c.cid}/docs?apikey=${c.apikey}`)
    .set('Content-Type', 'application/x-www-form-urlencoded; charset=euc-kr')
    .send(`dockey=a&doc=${encodeURIComponent(docJson())}`);
  expect([res.status, res.text]).toEqual([400, SEARCH_ERRORS.add.invalidEncoding.text]);
  res = await request(app)
    .post(`/v2/${c.cid}/docs`)
    .set('Content-Type', 'application/x-www-form-urlencoded; charset="UTF-8"')
    .send(`apikey=${c.apikey}&dockey=utf8&doc=${encodeURIComponent(docJson())}`);
  expect(res.status).toBe(200);
});

test('When a form body has no Content-Type, it is read as a form', async () => {
  const res = await request(app)
    .delete(`/v2/${c.cid}/docs`)
    .set('Content-Type', '')
    .send(Buffer.from(`apikey=${c.apikey}&dockey=utf8`));
  expect([res.status, res.text]).toEqual([200, 'OK']);
});

test('When a form body is gzip-compressed, it is inflated (within the size limit)', async () => {
  const body = zlib.gzipSync(`apikey=${c.apikey}&dockey=gz&doc=${encodeURIComponent(docJson())}`);
  const res = await rawForm('post', body, { 'Content-Encoding': 'gzip' });
  expect(res.status).toBe(200);
  const bomb = zlib.gzipSync(`apikey=${c.apikey}&dockey=bomb&doc=${'x'.repeat(100_000)}`);
  const refused = await rawForm('post', bomb, { 'Content-Encoding': 'gzip' });
  expect(refused.status).toBe(413);
  const unknown = await rawForm('post', 'x', { 'Content-Encoding': 'br-nope' });
  expect(unknown.status).toBe(415);
});

test('When raw bytes in a body are not UTF-8 or an escape is malformed, writes answer invalid encoding', async () => {
  const cases = [
    Buffer.concat([Buffer.from(`apikey=${c.apikey}&dockey=a&doc=`), Buffer.from([0xc3, 0x28])]),
    Buffer.from(`apikey=${c.apikey}&dockey=a%zz&doc=${encodeURIComponent(docJson())}`),
    Buffer.from(`apikey=${c.apikey}&dockey=a%E&doc=${encodeURIComponent(docJson())}`),
    Buffer.from(`apikey=${c.apikey}&dockey=%ED%A0%80&doc=${encodeURIComponent(docJson())}`),
  ];
  for (const body of cases) {
    for (const method of ['post', 'put'] as const) {
      const res = await rawForm(method, body);
      expect([res.status, res.text]).toEqual([400, SEARCH_ERRORS.add.invalidEncoding.text]);
    }
  }
  // raw UTF-8 (not percent-encoded) is fine
  const res = await rawForm(
    'post',
    Buffer.from(
      `apikey=${c.apikey}&dockey=raw-서울&doc=${docJson({ icontents_title: 'raw 서울' }).replace(/&/g, '%26')}`,
    ),
  );
  expect(res.status).toBe(200);
  expect(JSON.parse((await client(app, c).search({ q: '서울' })).text).docs[0].dockey).toBe(
    'raw-서울',
  );
});

test('When delete or field update get a badly encoded dockey, they answer dockey is invalid', async () => {
  let res = await request(app).delete(`/v2/${c.cid}/docs?apikey=${c.apikey}&dockey=%FF`);
  expect([res.status, res.text]).toEqual([404, SEARCH_ERRORS.delete.dockeyInvalid.text]);
  res = await request(app).put(
    `/v2/${c.cid}/docs/fields?apikey=${c.apikey}&dockey=%FF&fieldname=score_x&fieldvalue=1`,
  );
  expect([res.status, res.text]).toEqual([404, SEARCH_ERRORS.fieldUpdate.dockeyInvalid.text]);
  res = await request(app).put(
    `/v2/${c.cid}/docs/fields?apikey=${c.apikey}&dockey=existing&fieldname=%FF&fieldvalue=1`,
  );
  expect(res.text).toBe(SEARCH_ERRORS.fieldUpdate.fieldnameInvalid.text);
  res = await request(app).put(
    `/v2/${c.cid}/docs/fields?apikey=${c.apikey}&dockey=existing&fieldname=score_x&fieldvalue=1%FF`,
  );
  expect(res.text).toBe(SEARCH_ERRORS.fieldUpdate.fieldvalueInvalid.text);
});

test('When search parameters other than q are badly encoded, each answers its own invalid error', async () => {
  const S = SEARCH_ERRORS.search;
  const invalid = {
    ca: S.caInvalid,
    ex_ca: S.exCaInvalid,
    start: S.startInvalid,
    len: S.lenInvalid,
    sort: S.sortInvalid,
    startdate: S.startdateInvalid,
    enddate: S.enddateInvalid,
  };
  for (const [param, error] of Object.entries(invalid)) {
    const res = await request(app).get(
      `/v2/${c.cid}/search/json?apikey=${c.apikey}&q=hello&${param}=1%C0`,
    );
    expect([param, res.text]).toEqual([param, error.text]);
  }
  const res = await request(app).get(`/v2/${c.cid}/search/json?apikey=${c.apikey}&q=hel%zzlo`);
  expect(res.text).toBe(S.qInvalidEncoding.text);
});

test('When a path escape is malformed, the answer is 400 bad request', async () => {
  const res = await request(app).get(`/v2/%E0%A4%A/search/json?apikey=${c.apikey}&q=x`);
  expect([res.status, res.text]).toEqual([400, 'bad request']);
});

test('When HEAD is sent to search or status, it answers like GET without a body', async () => {
  const res = await request(app).head(`/v2/${c.cid}/status/json?apikey=${c.apikey}`);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
});

test('When DELETE carries its parameters in a form body, they are read', async () => {
  await client(app, c).add('to-delete', docJson());
  const res = await request(app)
    .delete(`/v2/${c.cid}/docs`)
    .type('form')
    .send(`apikey=${c.apikey}&dockey=to-delete`);
  expect([res.status, res.text]).toEqual([200, 'OK']);
});

test('When GET search carries its parameters in a form body, they are read', async () => {
  const res = await request(app)
    .get(`/v2/${c.cid}/search/json`)
    .type('form')
    .send(`apikey=${c.apikey}&q=hello`);
  expect(res.status).toBe(200);
  expect(JSON.parse(res.text).numfound).toBe(1);
});

describe('public addresses with a path', () => {
  let mounted: SearchApp;
  beforeAll(() => {
    mounted = makeApp(db, {
      env: {
        SEARCH_BASE_URL: 'https://api.example.com/index',
        SEARCH_URL: 'https://search.example.com/find',
      },
    });
  });
  afterAll(() => mounted.services.close());

  test('When SEARCH_BASE_URL and SEARCH_URL have paths, the operations are served under them', async () => {
    let res = await request(mounted).get(`/index/v2/${c.cid}/status/json?apikey=${c.apikey}`);
    expect(res.status).toBe(200);
    res = await request(mounted).get(`/find/v2/${c.cid}/search/json?apikey=${c.apikey}&q=hello`);
    expect(res.status).toBe(200);
    res = await request(mounted).get(`/v2/${c.cid}/status/json?apikey=${c.apikey}`);
    expect(res.status).toBe(404);
    res = await request(mounted).get(`/index/v2/${c.cid}/search/json?apikey=${c.apikey}&q=hello`);
    expect(res.status).toBe(404);
    res = await request(mounted).get('/healthz');
    expect(res.status).toBe(200);
  });
});
