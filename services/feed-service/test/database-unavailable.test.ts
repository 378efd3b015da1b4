import { FEED_ERRORS } from '@hub/contracts';
import { createLogger, createPool } from '@hub/service-kit';
import { getFeed, item, makeApp, publish, useDatabase } from './helpers/harness';

/**
 * The database unreachable is the 503 row, not a 500: the service's pool reports a wait for a
 * connection that timed out (or a connection lost) as a DatabaseUnavailableError.
 */

const db = useDatabase();

test('When every connection of the pool stays busy for DATABASE_CONNECT_TIMEOUT_MS, reads and writes answer 503', async () => {
  const pool = createPool(db.url, 1, createLogger('test', 'silent'), { connectTimeoutMs: 200 });
  const app = await makeApp(db, {}, { pool, cache: false, logger: createLogger('test', 'silent') });
  const unavailable = { error: { status: 503, message: FEED_ERRORS.unavailable.text } };
  const busy = await pool.connect(); // the pool's one connection, held
  try {
    let res = await getFeed(app, '/hub/contents');
    expect([res.status, res.body]).toEqual([503, unavailable]);
    res = await publish(app, item());
    expect([res.status, res.body]).toEqual([503, unavailable]);
  } finally {
    busy.release();
  }
  expect((await getFeed(app, '/hub/contents')).status).toBe(200);
  await app.close();
  await pool.end();
});
