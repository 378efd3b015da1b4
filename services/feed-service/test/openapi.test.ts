import request from 'supertest';
import { openApiChecker, openApiServersTests } from '@hub/testing';
import type { FeedApp } from '../src/app';
import { makeApp, useDatabase } from './helpers/harness';
import { ACCEPT_JSON, ACCEPT_XML } from './helpers/requests';
import { READ_TOKEN, WRITE_TOKEN } from './helpers/tokens';

const OPENAPI = require('../openapi/openapi.json') as Record<string, unknown>;
const check = openApiChecker(OPENAPI);
const db = useDatabase();
let app: FeedApp;
beforeAll(async () => (app = await makeApp(db)));

openApiServersTests({
  openapi: OPENAPI,
  app: (baseUrl) => makeApp(db, { FEED_BASE_URL: baseUrl ?? '' }),
  baseUrl: 'https://api.example.com/feed',
  fallback: 'http://localhost:8080',
});

const item = {
  title: '서울 맛집',
  link: 'https://example.com/a',
  description: '설명',
  category: 'food',
  creator: '김',
  enclosure: { url: 'https://example.com/a.jpg' },
};

test('When real requests are made, every response matches the OpenAPI document', async () => {
  const w = (r: request.Test) => r.set('Authorization', `Bearer ${WRITE_TOKEN}`);
  const rd = (r: request.Test, accept = ACCEPT_JSON) =>
    r.set('Authorization', `Bearer ${READ_TOKEN}`).set('Accept', accept);
  const created = await w(request(app).post('/hub/contents')).send(item);
  const id = String(created.body.id);
  const second = await w(request(app).post('/hub/contents')).send({
    ...item,
    link: 'https://example.com/b',
  });
  const other = String(second.body.id);
  const calls: Array<[string, string, request.Response]> = [
    ['POST', '/hub/contents', created],
    ['POST', '/hub/contents', await w(request(app).post('/hub/contents')).send(item)],
    [
      'POST',
      '/hub/contents',
      await w(request(app).post('/hub/contents')).send({ ...item, title: 'other' }),
    ],
    [
      'POST',
      '/hub/contents',
      await w(request(app).post('/hub/contents')).send({ ...item, category: 'x' }),
    ],
    ['POST', '/hub/contents', await rd(request(app).post('/hub/contents')).send(item)],
    ['PUT', `/hub/contents/${id}`, await w(request(app).put(`/hub/contents/${id}`)).send(item)],
    [
      'PUT',
      `/hub/contents/${other}`,
      await w(request(app).put(`/hub/contents/${other}`)).send(item),
    ],
    ['GET', '/hub/contents', await rd(request(app).get('/hub/contents'))],
    ['GET', '/hub/contents', await rd(request(app).get('/hub/contents'), ACCEPT_XML)],
    [
      'GET',
      '/hub/categories/food/contents',
      await rd(request(app).get('/hub/categories/food/contents')),
    ],
    [
      'GET',
      '/hub/categories/nope/contents',
      await rd(request(app).get('/hub/categories/nope/contents')),
    ],
    ['GET', '/hub/contents', await request(app).get('/hub/contents').set('Accept', ACCEPT_JSON)],
    ['DELETE', `/hub/contents/${id}`, await w(request(app).delete(`/hub/contents/${id}`))],
    ['DELETE', `/hub/contents/${id}`, await w(request(app).delete(`/hub/contents/${id}`))],
    ['GET', '/healthz', await request(app).get('/healthz')],
    ['GET', '/readyz', await request(app).get('/readyz')],
    ['GET', '/openapi.json', await request(app).get('/openapi.json')],
  ];
  for (const [method, url, res] of calls) {
    expect(() => check(method, url, res)).not.toThrow();
  }
  expect(calls.map(([, , r]) => r.status)).toEqual([
    201, 200, 409, 422, 403, 200, 409, 200, 200, 200, 422, 401, 204, 404, 200, 200, 200,
  ]);
});

test('GET /metrics answers Prometheus text with the request counters', async () => {
  await request(app).get('/healthz');
  const res = await request(app).get('/metrics');
  expect(res.status).toBe(200);
  expect(res.text).toMatch(/http_requests_total\{[^}]*route="\/healthz"/);
});
