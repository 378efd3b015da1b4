import request from 'supertest';
import { loadConfig } from '../src/config';
import { makeApp, useDatabase } from './helpers/harness';

const db = useDatabase();

test('When the process can serve, GET /healthz answers 200 without checking dependencies; /readyz checks the database', async () => {
  const app = await makeApp(db);
  const res = await request(app).get('/healthz');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ status: 'ok', checks: {} });
  const ready = await request(app).get('/readyz');
  expect(ready.status).toBe(200);
  expect(ready.body.checks).toEqual({ database: 'ok' });
});

test('When GET /openapi.json is asked for, the OpenAPI document is served without a token', async () => {
  const app = await makeApp(db);
  const res = await request(app).get('/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('application/json;charset=utf-8');
  expect(res.body.openapi).toMatch(/^3\./);
  expect(Object.keys(res.body.paths)).toContain('/hub/contents');
});

test('When a setting is bad, loadConfig lists every problem at once', () => {
  expect(() => loadConfig({ PORT: 'abc' })).toThrow(
    /PORT must be an integer[\s\S]*DATABASE_URL is required[\s\S]*FEED_JWT_SECRET \(HS256\) or FEED_JWT_PUBLIC_KEY/,
  );
});
