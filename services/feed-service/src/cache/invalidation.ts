import pg from 'pg';
import type { Logger } from '@hub/service-kit';
import { FEED_CHANGES_CHANNEL } from '../store/items';
import type { FeedCache } from './feed-cache';

export const LISTENER_APPLICATION_NAME = 'feed-service-listener';
const PING_INTERVAL_MS = 30_000;
const PING_TIMEOUT_MS = 5_000;
const MAX_BACKOFF_MS = 10_000;

/**
 * Keeps the rendered-feed cache honest across instances: a dedicated connection LISTENs
 * for the NOTIFY every write sends in its transaction, and drops the touched feeds.
 * While the connection is down notifications could be missed, so the cache is emptied
 * and bypassed until it is back (then emptied again); it reconnects with backoff and
 * pings the server so a silently dead connection is noticed.
 */
export class InvalidationListener {
  private client: pg.Client | undefined;
  private closed = false;
  private backoff = 250;
  private retryTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private resolveReady!: () => void;
  /** resolves once the first LISTEN is in place */
  readonly ready: Promise<void>;
  /** how many notifications arrived, and how many times LISTEN was (re-)established */
  notifications = 0;
  connections = 0;

  constructor(
    private readonly databaseUrl: string,
    private readonly cache: FeedCache,
    private readonly logger: Logger,
  ) {
    this.ready = new Promise((resolve) => (this.resolveReady = resolve));
  }

  start(): Promise<void> {
    void this.connect();
    return this.ready;
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({
      connectionString: this.databaseUrl,
      keepAlive: true,
      application_name: LISTENER_APPLICATION_NAME,
      connectionTimeoutMillis: 10_000,
    });
    this.client = client;
    const lost = (err?: unknown) => this.lost(client, err);
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (msg) => {
      if (msg.channel !== FEED_CHANGES_CHANNEL) return;
      this.notifications++;
      const feeds = (msg.payload ?? '').split(',').filter(Boolean);
      if (feeds.length) this.cache.invalidate(feeds);
      else this.cache.clear();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${FEED_CHANGES_CHANNEL}`);
    } catch (err) {
      lost(err);
      return;
    }
    if (this.closed || this.client !== client) return;
    this.backoff = 250;
    this.connections++;
    this.cache.setLive(true);
    this.logger.info('feed cache invalidation listening');
    this.schedulePing(client);
    this.resolveReady();
  }

  private schedulePing(client: pg.Client): void {
    clearTimeout(this.pingTimer);
    this.pingTimer = setTimeout(() => {
      if (this.client !== client) return;
      const timeout = setTimeout(
        () => this.lost(client, new Error('listener ping timed out')),
        PING_TIMEOUT_MS,
      );
      client.query('SELECT 1').then(
        () => {
          clearTimeout(timeout);
          this.schedulePing(client);
        },
        (err: unknown) => {
          clearTimeout(timeout);
          this.lost(client, err);
        },
      );
    }, PING_INTERVAL_MS);
    this.pingTimer.unref();
  }

  private lost(client: pg.Client, err?: unknown): void {
    if (this.client !== client) return; // already handled
    this.client = undefined;
    clearTimeout(this.pingTimer);
    this.cache.setLive(false);
    client.removeAllListeners('notification');
    client.on('error', () => {});
    client.end().catch(() => {});
    if (this.closed) return;
    this.logger.warn(
      { err, retryInMs: this.backoff },
      'feed cache invalidation connection lost; cache bypassed until it is back',
    );
    this.retryTimer = setTimeout(() => void this.connect(), this.backoff);
    this.retryTimer.unref();
    this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.pingTimer);
    const client = this.client;
    this.client = undefined;
    this.cache.setLive(false);
    if (client) await client.end().catch(() => {});
  }
}
