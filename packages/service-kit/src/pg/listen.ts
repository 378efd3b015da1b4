import pg from 'pg';
import type { Logger } from '../logger';

/** The connection a listener holds: its client, and how to give it back (or end it). */
export interface ListenConnection {
  client: pg.ClientBase;
  /** `err` set: the connection failed and must not be reused */
  close(err?: Error): Promise<void>;
}

export interface ChannelListenerOptions {
  channel: string;
  /** opens the connection that LISTENs: `pooledConnection(pool)` or `dedicatedConnection(config)` */
  open(): Promise<ListenConnection>;
  onNotify(payload: string): void;
  /**
   * LISTEN is in place, the first time and after every reconnect. Anything committed while
   * there was no LISTEN was not heard, so a worker should look for work now.
   */
  onListening?(): void;
  /** the connection is gone; nothing is heard until onListening */
  onLost?(err: unknown): void;
  logger: Pick<Logger, 'warn'>;
  /** the message logged (warn) when the connection is lost or cannot be opened */
  lostMessage?: string;
  /** reconnect delay: `firstMs` (default 1000), doubled per failure up to `maxMs` (default firstMs) */
  reconnect?: { firstMs: number; maxMs?: number };
  /** a `SELECT 1` this often notices a connection that died silently (default: no ping) */
  ping?: { everyMs: number; timeoutMs: number };
}

export interface ChannelListener {
  stop(): Promise<void>;
}

/**
 * LISTEN on one channel, for as long as it runs: a lost connection (error, end, failed ping)
 * is closed and opened again with backoff; onLost and onListening tell the owner when
 * notifications may have been missed. Both services' workers and caches listen through it.
 */
export function listenToChannel(opts: ChannelListenerOptions): ChannelListener {
  const { channel, logger } = opts;
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel ${channel}`);
  const firstMs = opts.reconnect?.firstMs ?? 1000;
  const maxMs = opts.reconnect?.maxMs ?? firstMs;
  let backoff = firstMs;
  let stopped = false;
  let current: ListenConnection | null = null;
  let retry: NodeJS.Timeout | undefined;
  let pingTimer: NodeJS.Timeout | undefined;

  const scheduleRetry = (err: unknown) => {
    if (stopped || retry) return;
    opts.onLost?.(err);
    logger.warn(
      { channel, err, retryInMs: backoff },
      opts.lostMessage ?? 'LISTEN connection unavailable; retrying',
    );
    retry = setTimeout(() => void connect(), backoff);
    retry.unref();
    backoff = Math.min(backoff * 2, maxMs);
  };

  const schedulePing = (conn: ListenConnection, broken: (err: unknown) => void) => {
    const ping = opts.ping;
    if (!ping) return;
    pingTimer = setTimeout(() => {
      if (current !== conn) return;
      const timeout = setTimeout(
        () => broken(new Error('listener ping timed out')),
        ping.timeoutMs,
      );
      conn.client.query('SELECT 1').then(
        () => {
          clearTimeout(timeout);
          schedulePing(conn, broken);
        },
        (err: unknown) => {
          clearTimeout(timeout);
          broken(err);
        },
      );
    }, ping.everyMs);
    pingTimer.unref();
  };

  const connect = async () => {
    retry = undefined;
    if (stopped) return;
    let conn: ListenConnection;
    try {
      conn = await opts.open();
    } catch (err) {
      scheduleRetry(err);
      return;
    }
    let isBroken = false;
    const broken = (err?: unknown) => {
      if (isBroken) return;
      isBroken = true;
      if (current === conn) {
        current = null;
        clearTimeout(pingTimer);
      }
      conn.client.removeAllListeners('notification');
      conn.client.on('error', () => {});
      void conn.close(err instanceof Error ? err : new Error('listener connection ended'));
      scheduleRetry(err);
    };
    conn.client.on('notification', (msg) => {
      if (msg.channel === channel) opts.onNotify(msg.payload ?? '');
    });
    conn.client.on('error', broken);
    conn.client.on('end', () => broken());
    try {
      await conn.client.query(`LISTEN ${channel}`);
    } catch (err) {
      broken(err);
      return;
    }
    if (stopped) {
      broken(new Error('stopped'));
      return;
    }
    current = conn;
    backoff = firstMs;
    schedulePing(conn, broken);
    opts.onListening?.();
  };
  void connect();

  return {
    async stop() {
      stopped = true;
      clearTimeout(retry);
      clearTimeout(pingTimer);
      const conn = current;
      current = null;
      if (!conn) return;
      for (const event of ['notification', 'end', 'error']) conn.client.removeAllListeners(event);
      conn.client.on('error', () => {});
      await conn.close();
    },
  };
}

/** A listener connection borrowed from a pool: UNLISTEN and release on stop. */
export function pooledConnection(pool: pg.Pool): () => Promise<ListenConnection> {
  return async () => {
    const client = await pool.connect();
    return {
      client,
      async close(err) {
        if (err) return client.release(err);
        try {
          await client.query('UNLISTEN *');
          client.release();
        } catch (e) {
          client.release(e instanceof Error ? e : new Error(String(e)));
        }
      },
    };
  };
}

/**
 * A connection of its own (outside any pool), e.g. with an application_name that operators
 * can find in pg_stat_activity; ended on stop.
 */
export function dedicatedConnection(config: pg.ClientConfig): () => Promise<ListenConnection> {
  return async () => {
    const client = new pg.Client(config);
    client.on('error', () => {}); // a failure is seen by connect() or by the listener's handler
    try {
      await client.connect();
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    return {
      client,
      close: () => client.end().catch(() => {}),
    };
  };
}
