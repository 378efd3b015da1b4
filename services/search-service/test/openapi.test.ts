import request from 'supertest';
import { openApiChecker } from '@hub/testing';
import { OPENAPI, type SearchApp } from '../src/app';
import {
  ADMIN_TOKEN,
  createSearchTestDatabase,
  docJson,
  makeApp,
  newCollection,
  type TestCollection,
  type TestDatabase,
} from './helpers/harness';

let db: TestDatabase;
let app: SearchApp;
let c: TestCollection;
const check = openApiChecker(OPENAPI as Record<string, unknown>);

beforeAll(async () => {
  db = await createSearchTestDatabase();
  app = makeApp(db);
  c = await newCollection(app);
});
afterAll(async () => {
  await app.services.close();
  await db.drop();
});

test('GET /openapi.json serves an OpenAPI 3.1 document', async () => {
  const res = await request(app).get('/openapi.json');
  expect(res.status).toBe(200);
  expect(res.body.openapi).toBe('3.1.0');
  check('GET', '/openapi.json', res);
});

test('When real requests are made, every response matches the OpenAPI document', async () => {
  const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
  const calls: Array<[string, string, () => request.Test]> = [
    [
      'POST',
      `/v2/${c.cid}/docs`,
      () =>
        request(app)
          .post(`/v2/${c.cid}/docs`)
          .type('form')
          .send({
            apikey: c.apikey,
            dockey: 'k1',
            doc: docJson({ score_big: 9223372036854775807n.toString(), categories: [1] }).replace(
              '"9223372036854775807"',
              '9223372036854775807',
            ),
          }),
    ],
    [
      'POST',
      `/v2/${c.cid}/docs`,
      () =>
        request(app)
          .post(`/v2/${c.cid}/docs`)
          .type('form')
          .send({ apikey: c.apikey, dockey: 'k1', doc: docJson() }),
    ],
    [
      'PUT',
      `/v2/${c.cid}/docs/fields`,
      () =>
        request(app).put(`/v2/${c.cid}/docs/fields`).type('form').send({
          apikey: c.apikey,
          dockey: 'k1',
          fieldname: 'score_regdate',
          fieldvalue: '1700000001',
        }),
    ],
    [
      'GET',
      `/v2/${c.cid}/search/json`,
      () => request(app).get(`/v2/${c.cid}/search/json`).query({ apikey: c.apikey, q: 'title' }),
    ],
    [
      'GET',
      `/v2/${c.cid}/search/xml`,
      () => request(app).get(`/v2/${c.cid}/search/xml`).query({ apikey: c.apikey, q: 'title' }),
    ],
    [
      'GET',
      `/v2/${c.cid}/search/html`,
      () => request(app).get(`/v2/${c.cid}/search/html`).query({ apikey: c.apikey, q: 'title' }),
    ],
    [
      'GET',
      `/v2/${c.cid}/status/json`,
      () => request(app).get(`/v2/${c.cid}/status/json`).query({ apikey: c.apikey }),
    ],
    [
      'GET',
      `/v2/${c.cid}/status/xml`,
      () => request(app).get(`/v2/${c.cid}/status/xml`).query({ apikey: c.apikey }),
    ],
    [
      'PUT',
      `/v2/${c.cid}/docs`,
      () =>
        request(app)
          .put(`/v2/${c.cid}/docs`)
          .type('form')
          .send({ apikey: c.apikey, dockey: 'k1', doc: docJson() }),
    ],
    [
      'DELETE',
      `/v2/${c.cid}/docs`,
      () => request(app).delete(`/v2/${c.cid}/docs`).query({ apikey: c.apikey, dockey: 'k1' }),
    ],
    [
      'DELETE',
      `/v2/${c.cid}/docs`,
      () =>
        request(app)
          .delete(`/v2/${c.cid}/docs`)
          .query({ apikey: 'f'.repeat(32), dockey: 'k1' }),
    ],
    ['GET', '/admin/collections', () => request(app).get('/admin/collections').set(auth)],
    [
      'GET',
      `/admin/collections/${c.cid}`,
      () => request(app).get(`/admin/collections/${c.cid}`).set(auth),
    ],
    [
      'GET',
      '/admin/collections/zzzzzzzz',
      () => request(app).get('/admin/collections/zzzzzzzz').set(auth),
    ],
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

test('GET /metrics answers Prometheus text with the request counters', async () => {
  await request(app).get('/healthz');
  const res = await request(app).get('/metrics');
  expect(res.status).toBe(200);
  expect(res.text).toMatch(/http_requests_total\{[^}]*route="\/healthz"/);
  expect(res.text).toMatch(/http_request_duration_seconds_bucket/);
});
