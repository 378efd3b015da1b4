import path from 'node:path';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '@hub/testing';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ migrationsDir: path.join(__dirname, '..', 'migrations'), migrationsTable: 'feed_migrations' });
});
afterAll(() => db.drop());

test('When the database answers, GET /healthz answers 200', async () => {
  const app = createApp({ config: loadConfig({ DATABASE_URL: db.url }), pool: db.pool });
  const res = await request(app).get('/healthz');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ status: 'ok', checks: { database: 'ok' } });
});

test('When a setting is bad, loadConfig lists every problem at once', () => {
  expect(() => loadConfig({ PORT: 'abc' })).toThrow(/PORT must be an integer[\s\S]*DATABASE_URL is required/);
});
