import {
  dedicatedConnection,
  listenToChannel,
  type ChannelListener,
  type Logger,
} from '@hub/service-kit';
import { FEED_CHANGES_CHANNEL } from '../store/feed-changes';
import type { FeedCache } from './feed-cache';

export const LISTENER_APPLICATION_NAME = 'feed-service-listener';

export interface InvalidationListener {
  /** resolves once the first LISTEN is in place */
  readonly ready: Promise<void>;
  /** how many notifications arrived */
  readonly notifications: number;
  /** how many times LISTEN was (re-)established */
  readonly connections: number;
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Keeps the rendered-feed cache honest across instances: a dedicated connection LISTENs
 * for the NOTIFY every write sends in its transaction, and drops the touched feeds.
 * While the connection is down notifications could be missed, so the cache is emptied
 * and bypassed until it is back (then emptied again); it reconnects with backoff and
 * pings the server so a silently dead connection is noticed.
 */
export function createInvalidationListener(
  databaseUrl: string,
  cache: FeedCache,
  logger: Logger,
): InvalidationListener {
  let resolveReady!: () => void;
  const ready = new Promise<void>((resolve) => (resolveReady = resolve));
  let notifications = 0;
  let connections = 0;
  let listener: ChannelListener | undefined;
  return {
    ready,
    get notifications() {
      return notifications;
    },
    get connections() {
      return connections;
    },
    start() {
      listener ??= listenToChannel({
        channel: FEED_CHANGES_CHANNEL,
        open: dedicatedConnection({
          connectionString: databaseUrl,
          keepAlive: true,
          application_name: LISTENER_APPLICATION_NAME,
          connectionTimeoutMillis: 10_000,
        }),
        onNotify(payload) {
          notifications++;
          const feeds = payload.split(',').filter(Boolean);
          if (feeds.length) cache.invalidate(feeds);
          else cache.clear();
        },
        onListening() {
          connections++;
          cache.setLive(true);
          logger.info('feed cache invalidation listening');
          resolveReady();
        },
        onLost: () => cache.setLive(false),
        logger,
        lostMessage: 'feed cache invalidation connection lost; cache bypassed until it is back',
        reconnect: { firstMs: 250, maxMs: 10_000 },
        ping: { everyMs: 30_000, timeoutMs: 5_000 },
      });
      return ready;
    },
    async close() {
      cache.setLive(false);
      await listener?.stop();
    },
  };
}
