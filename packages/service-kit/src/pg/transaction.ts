import type pg from 'pg';

/** A pool or a client inside a transaction: whatever can run a query. */
export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

export interface TransactionOptions {
  /**
   * The transaction's mode, sent with BEGIN (default: the server's, READ COMMITTED). A
   * 'repeatable read' transaction's statements all see the snapshot its first statement took.
   */
  isolation?: 'repeatable read' | 'serializable';
  /** BEGIN ... READ ONLY: the transaction writes nothing */
  readOnly?: boolean;
  /**
   * A first statement sent in the same round trip as BEGIN (simple protocol: values must be
   * inlined with pg.escapeLiteral). Its rows are handed to `work`.
   */
  first?: string;
  /**
   * The SQL that ends the transaction (default COMMIT). It may carry a last statement before
   * the COMMIT in the same round trip; if that statement fails, the COMMIT does not run.
   */
  commit?: string;
}

/**
 * Runs `work` in one transaction on one pooled connection: BEGIN, work, COMMIT; ROLLBACK on
 * any error (the error is rethrown). A connection that failed is not returned to the pool.
 * `onDatabaseError` turns a failure of the transaction itself (connect, BEGIN, the commit)
 * into the error the caller answers with.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  onDatabaseError: (cause: unknown) => Error,
  work: (tx: pg.PoolClient, first: pg.QueryResult | null) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (e) {
    throw onDatabaseError(e);
  }
  let broken = false;
  // a connection lost mid-transaction fails the query in flight; the client's own 'error'
  // event must not crash the process (the client is then not returned to the pool)
  const lost = () => {
    broken = true;
  };
  client.on('error', lost);
  const rollback = () =>
    client.query('ROLLBACK').catch(() => {
      broken = true;
    });
  const begin = [
    'BEGIN',
    options.isolation && `ISOLATION LEVEL ${options.isolation.toUpperCase()}`,
    options.readOnly && 'READ ONLY',
  ]
    .filter(Boolean)
    .join(' ');
  try {
    let first: pg.QueryResult | null = null;
    try {
      if (options.first) {
        const results = (await client.query(
          `${begin}; ${options.first}`,
        )) as unknown as pg.QueryResult[];
        first = results[1]!;
      } else {
        await client.query(begin);
      }
    } catch (e) {
      await rollback();
      throw onDatabaseError(e);
    }
    let result: T;
    try {
      result = await work(client, first);
    } catch (e) {
      await rollback();
      throw e;
    }
    try {
      await client.query(options.commit ?? 'COMMIT');
    } catch (e) {
      await rollback();
      throw onDatabaseError(e);
    }
    return result;
  } finally {
    client.off('error', lost);
    client.release(broken);
  }
}

/** The SQLSTATE of a database error, if it has one. */
export function sqlState(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * An `onDatabaseError` for background work: the failure as it is (the worker logs it and
 * retries), where a request handler would turn it into its contract's error.
 */
export const asIs = (cause: unknown): Error =>
  cause instanceof Error ? cause : new Error(String(cause));
