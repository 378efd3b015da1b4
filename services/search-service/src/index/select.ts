import type pg from 'pg';
import type { Logger } from '@hub/service-kit';
import type { SearchConfig } from '../config';
import { createPostgresIndex } from './postgres/postgres-index';
import type { SearchIndex } from './search-index';

/**
 * Chooses the search engine for main.ts. The seam for more engines: today always the
 * Postgres engine; the Meilisearch engine is chosen here when it is configured (MEILI_URL).
 */
export function selectSearchIndex(deps: {
  config: SearchConfig;
  pool: pg.Pool;
  logger: Logger;
}): SearchIndex {
  deps.logger.info({ engine: 'postgres' }, 'search engine selected');
  return createPostgresIndex(deps.pool);
}
