import request from 'supertest';
import { openApiChecker, openApiServersTests } from '@hub/testing';
import { OPENAPI, type SearchApp } from '../src/app';
import { adminApi } from './helpers/admin';
import { makeApp, useSearchApp } from './helpers/harness';
import { client, docJson, type TestCollection } from './helpers/requests';

let app: SearchApp;
let c: TestCollection;
const check = openApiChecker(OPENAPI as Record<string, unknown>);
const db = useSearchApp((t) => ({ app, c } = t), { collection: true });

openApiServersTests({
  openapi: OPENAPI as Record<string, unknown>,
  app: (baseUrl) => makeApp(db, { env: baseUrl ? { SEARCH_BASE_URL: baseUrl } : {} }),
  baseUrl: 'https://api.example.com/search',
  fallback: 'http://127.0.0.1:8081',
});

test('GET /openapi.json serves an OpenAPI 3.1 document', async () => {
  const res = await request(app).get('/openapi.json');
  expect(res.status).toBe(200);
  expect(res.body.openapi).toBe('3.1.0');
  check('GET', '/openapi.json', res);
});

test('When real requests are made, every response matches the OpenAPI document', async () => {
  const form = client(app, c);
  const query = client(app, c, 'query');
  const admin = adminApi(app);
  const docs = `/v2/${c.cid}/docs`;
  const calls: Array<[string, string, () => request.Test]> = [
    [
      'POST',
      docs,
      () =>
        form.add(
          'k1',
          docJson({ score_big: 9223372036854775807n.toString(), categories: [1] }).replace(
            '"9223372036854775807"',
            '9223372036854775807',
          ),
        ),
    ],
    ['POST', docs, () => form.add('k1', docJson())],
    [
      'PUT',
      `/v2/${c.cid}/docs/fields`,
      () => form.updateField('k1', 'score_regdate', '1700000001'),
    ],
    ['GET', `/v2/${c.cid}/search/json`, () => form.search({ q: 'title' })],
    ['GET', `/v2/${c.cid}/search/xml`, () => form.search({ q: 'title' }, 'xml')],
    ['GET', `/v2/${c.cid}/search/html`, () => form.search({ q: 'title' }, 'html')],
    ['GET', `/v2/${c.cid}/status/json`, () => query.status()],
    ['GET', `/v2/${c.cid}/status/xml`, () => query.status('xml')],
    ['PUT', docs, () => form.update('k1', docJson())],
    ['DELETE', docs, () => query.delete('k1')],
    ['DELETE', docs, () => client(app, { ...c, apikey: 'f'.repeat(32) }, 'query').delete('k1')],
    ['GET', '/admin/collections', () => admin.get('/collections')],
    ['GET', `/admin/collections/${c.cid}`, () => admin.get(`/collections/${c.cid}`)],
    ['GET', '/admin/collections/zzzzzzzz', () => admin.get('/collections/zzzzzzzz')],
    ['GET', '/healthz', () => request(app).get('/healthz')],
    ['GET', '/readyz', () => request(app).get('/readyz')],
  ];
  const statuses: number[] = [];
  for (const [method, url, call] of calls) {
    const res = await call();
    statuses.push(res.status);
    expect(() => check(method, url, res)).not.toThrow();
  }
  expect(statuses).toEqual([
    200, 406, 200, 200, 200, 400, 200, 200, 200, 200, 401, 200, 200, 404, 200, 200,
  ]);
});

test('When highlights are asked for, the answers match the OpenAPI document too', async () => {
  const form = client(app, c);
  await form.add('hl-doc', docJson({ icontents_title: 'highlight me' }));
  const path = `/v2/${c.cid}/search/json`;
  const ok = await form.search({ q: 'highlight', hl: 1, hl_pre: '[', hl_post: ']' });
  expect(ok.status).toBe(200);
  expect(ok.body.docs[0].highlight_title).toBe('[highlight] me');
  expect(() => check('GET', path, ok)).not.toThrow();
  const refused = await form.search({ q: 'highlight', hl: 2 });
  expect(refused.status).toBe(400);
  expect(() => check('GET', path, refused)).not.toThrow();
});

test('GET /metrics answers Prometheus text with the request counters', async () => {
  await request(app).get('/healthz');
  const res = await request(app).get('/metrics');
  expect(res.status).toBe(200);
  expect(res.text).toMatch(/http_requests_total\{[^}]*route="\/healthz"/);
  expect(res.text).toMatch(/http_request_duration_seconds_bucket/);
});

test('When a search asks facet=categories, the document lists the parameter and the answers match it', async () => {
  const api = client(app, c);
  expect(
    (await api.add('f1', docJson({ icontents_title: 'facet', categories: [4, 9] }))).status,
  ).toBe(200);
  const url = `/v2/${c.cid}/search/json`;
  const counted = await api.search({ q: 'facet', ca: '9', facet: 'categories' });
  expect(JSON.parse(counted.text).facets).toEqual({ categories: { '4': 1, '9': 1 } });
  const refused = await api.search({ q: 'facet', facet: 'dates' });
  expect([refused.status, refused.text]).toEqual([400, 'facet parameter is invalid']);
  for (const res of [counted, refused]) expect(() => check('GET', url, res)).not.toThrow();
  const search = (OPENAPI as { paths: Record<string, { get?: { parameters: unknown[] } }> }).paths[
    '/v2/{cid}/search/{format}'
  ]!.get!;
  expect(search.parameters).toContainEqual(
    expect.objectContaining({ name: 'facet', schema: { type: 'string', enum: ['categories'] } }),
  );
});

test('When a search asks prefix=1, the document lists the parameter and the answers match it', async () => {
  const api = client(app, c);
  expect((await api.add('p1', docJson({ icontents_title: 'prefixes' }))).status).toBe(200);
  const url = `/v2/${c.cid}/search/json`;
  const typed = await api.search({ q: 'prefi', prefix: 1 });
  expect(JSON.parse(typed.text).numfound).toBe(1);
  const refused = await api.search({ q: 'prefi', prefix: 'yes' });
  expect([refused.status, refused.text]).toEqual([400, 'prefix parameter is invalid']);
  for (const res of [typed, refused]) expect(() => check('GET', url, res)).not.toThrow();
  const search = (OPENAPI as { paths: Record<string, { get?: { parameters: unknown[] } }> }).paths[
    '/v2/{cid}/search/{format}'
  ]!.get!;
  expect(search.parameters).toContainEqual(
    expect.objectContaining({ name: 'prefix', schema: { type: 'string', enum: ['0', '1'] } }),
  );
});
