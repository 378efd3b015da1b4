import pg from 'pg';
import { createLogger, createPool, DatabaseUnavailableError } from '@hub/service-kit';

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

describe("A pool of createPool's reports the database unavailable by type", () => {
  const silent = createLogger('test', 'silent');

  test('When the wait for a connection times out (the one connection held), query and connect reject with DatabaseUnavailableError', async () => {
    const pool = createPool(adminUrl(), 1, silent, { connectTimeoutMs: 200 });
    const held = await pool.connect();
    try {
      const failure = await pool.query('SELECT 1').catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(DatabaseUnavailableError);
      expect((failure as Error).cause).toBeInstanceOf(Error);
      await expect(pool.connect()).rejects.toBeInstanceOf(DatabaseUnavailableError);
      // pg's callback form too
      const viaCallback = await new Promise((resolve) => pool.query('SELECT 1', [], resolve));
      expect(viaCallback).toBeInstanceOf(DatabaseUnavailableError);
    } finally {
      held.release();
      await pool.end();
    }
  });

  test('When the server refuses the connection, the query rejects with DatabaseUnavailableError', async () => {
    const pool = createPool('postgres://127.0.0.1:1/none', 1, silent);
    try {
      const failure = await pool.query('SELECT 1').catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(DatabaseUnavailableError);
      expect(((failure as Error).cause as { code?: string }).code).toBe('ECONNREFUSED');
    } finally {
      await pool.end();
    }
  });

  test("When a client's backend is terminated (pg_terminate_backend), its next query rejects with DatabaseUnavailableError; one in flight keeps the server's SQLSTATE", async () => {
    const pool = createPool(adminUrl(), 2, silent);
    const killer = new pg.Client({ connectionString: adminUrl() });
    await killer.connect();
    const terminate = async (client: pg.PoolClient) => {
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await killer.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    };
    try {
      const idle = await pool.connect();
      await terminate(idle);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await expect(idle.query('SELECT 1')).rejects.toBeInstanceOf(DatabaseUnavailableError);
      idle.release(true);

      const busy = await pool.connect();
      const { rows } = await busy.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const inFlight = busy.query('SELECT pg_sleep(10)').catch((e: unknown) => e);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await killer.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      const failure = await inFlight;
      expect(failure).toBeInstanceOf(pg.DatabaseError);
      expect((failure as pg.DatabaseError).code).toBe('57P01');
      busy.release(true);
    } finally {
      await killer.end();
      await pool.end();
    }
  });

  test('When the server refuses a statement (a syntax error), the DatabaseError stays as it is', async () => {
    const pool = createPool(adminUrl(), 1, silent);
    try {
      const failure = await pool.query('SELEC 1').catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(pg.DatabaseError);
      expect(failure).not.toBeInstanceOf(DatabaseUnavailableError);
      expect((failure as pg.DatabaseError).code).toBe('42601');
      const client = await pool.connect();
      await expect(client.query('SELEC 1')).rejects.toBeInstanceOf(pg.DatabaseError);
      client.release();
    } finally {
      await pool.end();
    }
  });
});
