import type pg from 'pg';
import type { Logger, Metrics } from '@hub/service-kit';
import type { SearchConfig } from '../config';
import { createMeilisearchIndex } from './meilisearch/meilisearch-index';
import { createPostgresIndex } from './postgres/postgres-index';
import type { SearchIndex } from './search-index';

/**
 * Chooses the search engine for main.ts: Meilisearch when MEILI_URL is set (production),
 * otherwise the Postgres engine (the embedded default).
 */
export function selectSearchIndex(deps: {
  config: SearchConfig;
  pool: pg.Pool;
  logger: Logger;
  metrics?: Metrics;
}): SearchIndex {
  const { config } = deps;
  if (config.meiliUrl) {
    deps.logger.info({ engine: 'meilisearch', index: config.meiliIndex }, 'search engine selected');
    return createMeilisearchIndex({
      pool: deps.pool,
      url: config.meiliUrl,
      apiKey: config.meiliApiKey,
      indexUid: config.meiliIndex,
      logger: deps.logger,
      metrics: deps.metrics,
      maxLagSeconds: config.meiliMaxLagSeconds,
      maxTotalHits: config.meiliMaxTotalHits,
    });
  }
  deps.logger.info({ engine: 'postgres' }, 'search engine selected');
  return createPostgresIndex(deps.pool, {
    logger: deps.logger,
    metrics: deps.metrics,
    cacheBytes: config.indexCacheBytes,
    foldBatchSize: config.foldBatchSize,
    foldMaxDelayMs: config.foldMaxDelayMs,
    databaseUrl: config.databaseUrl,
    logLevel: config.logLevel,
    autoFold: config.runFolder,
  });
}
