import type pg from 'pg';

/**
 * A short transaction of the relay on a connection of its own. A connection that dies (a
 * terminated backend) must not become an uncaught 'error' event: the error is kept, the next
 * query fails, and the connection is released destroyed.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  fn: (tx: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (err: Error) => {
    broken = err;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    broken = err instanceof Error ? err : new Error(String(err));
    try {
      await client.query('ROLLBACK');
      broken = undefined;
    } catch {
      // connection gone: release it destroyed
    }
    throw err;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
