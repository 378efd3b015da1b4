import pg from 'pg';
import { createPool } from '@hub/service-kit';

/** The admin database the test run uses (the global setup sets it). */
const adminUrl = () => process.env.TEST_ADMIN_DATABASE_URL ?? process.env.DATABASE_URL!;

test('When the backend of a checked-out client is terminated between queries, the process survives and the next query fails', async () => {
  const pool = createPool(adminUrl(), 2);
  const killer = new pg.Client({ connectionString: adminUrl() });
  await killer.connect();
  try {
    const client = await pool.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    // no listener of the test's own: the client emits 'error' with only the pool's to hear it
    await killer.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expect(client.query('SELECT 1')).rejects.toThrow();
    client.release(true);
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  } finally {
    await killer.end();
    await pool.end();
  }
});
