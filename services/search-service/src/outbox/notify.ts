import type pg from 'pg';
import type { Logger } from '@hub/service-kit';

/** A sleep that ends early when woken (a NOTIFY arrived, or the worker is stopping). */
export interface Wakeup {
  wait(ms: number): Promise<void>;
  wake(): void;
}

export function createWakeup(): Wakeup {
  // a wake-up with nobody waiting is kept for the next wait (a NOTIFY during a batch)
  let pending = false;
  const waiters = new Set<() => void>();
  return {
    wait(ms) {
      if (pending) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        waiters.add(done);
      });
    },
    wake() {
      if (waiters.size === 0) pending = true;
      for (const done of [...waiters]) done();
    },
  };
}

export interface ChannelListener {
  stop(): Promise<void>;
}

/**
 * LISTEN on one channel with a dedicated pooled connection; reconnects after an error (and
 * calls onNotify then, since notifications may have been missed). The poll fallback of the
 * workers covers the time without a connection.
 */
export function listenChannel(
  pool: pg.Pool,
  channel: string,
  onNotify: () => void,
  logger: Pick<Logger, 'warn'>,
  reconnectMs = 1000,
): ChannelListener {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel ${channel}`);
  let stopped = false;
  let client: pg.PoolClient | null = null;
  let retry: NodeJS.Timeout | null = null;

  const connect = async () => {
    retry = null;
    if (stopped) return;
    let current: pg.PoolClient;
    try {
      current = await pool.connect();
    } catch (err) {
      scheduleRetry(err);
      return;
    }
    let broken = false;
    const onBroken = (err?: unknown) => {
      if (broken) return;
      broken = true;
      if (client === current) client = null;
      current.removeAllListeners('notification');
      current.release(err instanceof Error ? err : new Error('listener connection ended'));
      scheduleRetry(err);
    };
    current.on('notification', (msg) => {
      if (msg.channel === channel) onNotify();
    });
    current.on('error', onBroken);
    current.on('end', () => onBroken());
    try {
      await current.query(`LISTEN ${channel}`);
    } catch (err) {
      onBroken(err);
      return;
    }
    if (stopped) {
      onBroken(new Error('stopped'));
      return;
    }
    client = current;
    // anything committed before LISTEN took effect is picked up by this wake-up
    onNotify();
  };
  const scheduleRetry = (err: unknown) => {
    if (stopped || retry) return;
    logger.warn({ channel, err }, 'LISTEN connection unavailable; retrying');
    retry = setTimeout(() => void connect(), reconnectMs);
    retry.unref();
  };
  void connect();

  return {
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      if (c) {
        c.removeAllListeners('notification');
        c.removeAllListeners('end');
        c.removeAllListeners('error');
        c.on('error', () => {});
        try {
          await c.query(`UNLISTEN ${channel}`);
          c.release();
        } catch (err) {
          c.release(err instanceof Error ? err : new Error(String(err)));
        }
      }
    },
  };
}
