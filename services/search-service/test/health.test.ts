import request from 'supertest';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { createPostgresIndex } from '../src/index/postgres/postgres-index';
import { useSearchDatabase } from './helpers/harness';

const db = useSearchDatabase();

test('When the process can serve, GET /healthz answers 200 without checking dependencies; /readyz checks them', async () => {
  const config = loadConfig({ DATABASE_URL: db.url, SEARCH_ADMIN_TOKEN: 'x'.repeat(32) });
  const app = createApp({ config, pool: db.pool, index: createPostgresIndex(db.pool) });
  const res = await request(app).get('/healthz');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ status: 'ok', checks: {} });
  const ready = await request(app).get('/readyz');
  expect(ready.status).toBe(200);
  expect(ready.body.checks).toEqual({ database: 'ok', search_engine: 'ok' });
});

test('When a setting is bad, loadConfig lists every problem at once', () => {
  expect(() => loadConfig({ PORT: 'abc' })).toThrow(
    /PORT must be an integer[\s\S]*DATABASE_URL is required[\s\S]*SEARCH_ADMIN_TOKEN is required/,
  );
});

test('When SEARCH_ADMIN_TOKEN is short or a public address is not a URL, loadConfig refuses', () => {
  expect(() =>
    loadConfig({ DATABASE_URL: 'postgres://x/y', SEARCH_ADMIN_TOKEN: 'short', SEARCH_URL: 'nope' }),
  ).toThrow(/SEARCH_URL must be an absolute URL[\s\S]*SEARCH_ADMIN_TOKEN must be at least 16/);
});

test('When only SEARCH_BASE_URL is set, search and thumbnail addresses derive from it', () => {
  const config = loadConfig({
    DATABASE_URL: 'postgres://x/y',
    SEARCH_ADMIN_TOKEN: 'x'.repeat(16),
    SEARCH_BASE_URL: 'https://api.example.com/cloud/',
  });
  expect(config.baseUrl).toBe('https://api.example.com/cloud');
  expect(config.searchUrl).toBe('https://api.example.com/cloud');
  expect(config.thumbnailUrl).toBe('https://api.example.com/cloud/thumbnails');
});
