import pg from 'pg';

/**
 * A query failed because the database could not be reached, not because the server refused
 * the statement. pg reports a server's refusal as a `pg.DatabaseError` carrying its SQLSTATE;
 * every other failure of a query or a checkout (the pool's wait for a connection timing out,
 * the connection refused or lost, a client no longer queryable) is a plain Error with at most
 * an errno code. A pool of createPool's rethrows those as this type, the original as `cause`,
 * so a service tells "database unavailable" by its type, never by pg's message texts. A
 * TypeError or RangeError is the caller's own mistake (a bad argument) and stays as it is.
 * (A server error meaning unavailable, such as SQLSTATE 57P01 when the backend is terminated
 * mid-query, stays a DatabaseError: its SQLSTATE already says so.)
 */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

/** The failure as a pool of createPool rethrows it (see DatabaseUnavailableError). */
export function asUnavailable(e: unknown): unknown {
  if (
    e instanceof DatabaseUnavailableError ||
    e instanceof pg.DatabaseError ||
    e instanceof TypeError ||
    e instanceof RangeError
  ) {
    return e;
  }
  return new DatabaseUnavailableError(e);
}

type Callback = (err: unknown, ...results: unknown[]) => unknown;
type Method = (...args: unknown[]) => unknown;

/**
 * `method` (bound to its object) with its failures passed through asUnavailable, in each of
 * pg's call forms: a last argument that is a callback gets them as its error; a returned
 * promise rejects with them; anything else returned (a submittable such as a cursor) is
 * handed back as it is.
 */
function reportingUnavailable<F extends (...args: never[]) => unknown>(bound: F): F {
  const method = bound as unknown as Method;
  const reporting: Method = (...args) => {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (err: unknown, ...results: unknown[]) =>
        (callback as Callback)(err ? asUnavailable(err) : err, ...results);
      return method(...args);
    }
    const result = method(...args);
    if (result instanceof Promise) {
      return result.catch((e: unknown) => {
        throw asUnavailable(e);
      });
    }
    return result;
  };
  return reporting as unknown as F;
}

/**
 * Makes `pool` report DatabaseUnavailableError: its `connect` and `query`, and the `query` of
 * every client it connects (the clients of transactions; pool.query also fails through the
 * pool's own path when a client emits 'error' mid-query).
 */
export function reportUnavailable(pool: pg.Pool): void {
  pool.connect = reportingUnavailable(pool.connect.bind(pool));
  pool.query = reportingUnavailable(pool.query.bind(pool));
  pool.on('connect', (client) => {
    client.query = reportingUnavailable(client.query.bind(client));
  });
}
