import type pg from 'pg';
import type { Logger, Metrics } from '@hub/service-kit';
import { createApp, type SearchApp } from './app';
import { mountPath, type SearchConfig } from './config';
import { selectSearchIndex } from './index/select';
import type { SearchIndex } from './index/search-index';
import { createThumbnailService, thumbnailRouter, type ThumbnailService } from './thumbnails';

export interface SearchService {
  app: SearchApp;
  index: SearchIndex;
  thumbnails: ThumbnailService;
  /** starts the background workers (the engine's folder or relay, the thumbnail worker) */
  start(): void;
  /** stops them and flushes what the app counted; the pool stays open */
  stop(): Promise<void>;
}

/**
 * The whole service on a pool, as main.ts runs it (and the bench measures it): the engine the
 * config selects, the thumbnail service and its image route, the app.
 */
export function composeService(deps: {
  config: SearchConfig;
  pool: pg.Pool;
  logger: Logger;
  metrics: Metrics;
}): SearchService {
  const { config, pool, logger, metrics } = deps;
  const index = selectSearchIndex({ config, pool, logger, metrics });
  const thumbnails = createThumbnailService({
    pool,
    thumbnailUrl: config.thumbnailUrl,
    logger,
    allowPrivateNetworks: config.thumbnailAllowPrivateNetworks,
    fetchTimeoutMs: config.thumbnailFetchTimeoutMs,
    maxBytes: config.thumbnailMaxBytes,
    concurrency: config.thumbnailConcurrency,
    maxJobsPerCollection: config.thumbnailMaxJobsPerCollection,
    metrics,
  });
  const app = createApp({
    config,
    pool,
    index,
    thumbnails,
    logger,
    metrics,
    mounts: [{ path: mountPath(config.thumbnailUrl) || '/', handler: thumbnailRouter({ pool }) }],
  });
  return {
    app,
    index,
    thumbnails,
    start() {
      index.start?.();
      thumbnails.start?.();
    },
    async stop() {
      await app.services.close();
      await thumbnails.stop?.();
      await index.stop?.();
    },
  };
}
