import { SEARCH_ERRORS } from '@hub/contracts';
import { createLogger, createPool } from '@hub/service-kit';
import { createApp } from '../src/app';
import { createPostgresIndex } from '../src/index/postgres/postgres-index';
import { newCollection, testConfig, useSearchDatabase } from './helpers/harness';
import { client, docJson } from './helpers/requests';

/**
 * pg's queue of queries waiting for a connection has no bound: under a flood, requests would
 * wait on it for ever. The service's pool (made as runService makes it) bounds the wait by
 * DATABASE_CONNECT_TIMEOUT_MS, and the request answers its operation's 503 row.
 */

const db = useSearchDatabase();

test('When every connection of the pool stays busy for DATABASE_CONNECT_TIMEOUT_MS, a request answers its 503 row instead of waiting', async () => {
  const config = testConfig(db, { DATABASE_CONNECT_TIMEOUT_MS: '200' });
  expect(config.databaseConnectTimeoutMs).toBe(200);
  const pool = createPool(db.url, 1, createLogger('test', 'silent'), {
    connectTimeoutMs: config.databaseConnectTimeoutMs,
  });
  const app = createApp({ config, pool, index: createPostgresIndex(pool) });
  const c = await newCollection(app);
  const api = client(app, c);
  expect((await api.add('k', docJson())).status).toBe(200);

  const busy = await pool.connect(); // the pool's one connection, held
  let res = await api.search({ q: 'title' });
  expect([res.status, res.text]).toEqual([503, SEARCH_ERRORS.search.collectionInfoException.text]);
  res = await api.add('k2', docJson());
  expect([res.status, res.text]).toEqual([503, SEARCH_ERRORS.add.collectionInfoException.text]);

  busy.release();
  res = await api.search({ q: 'title' });
  expect([res.status, JSON.parse(res.text).numfound]).toEqual([200, 1]);
  await app.services.close();
  await pool.end();
});
