import type pg from 'pg';
import type { Logger } from '@hub/service-kit';
import type { DocumentChange, SearchIndex } from '../index/search-index';
import type { ThumbnailService } from '../thumbnails/thumbnail-service';

/** What the use cases need: the database, the search engine and the thumbnail service. */
export interface DomainDeps {
  pool: pg.Pool;
  index: SearchIndex;
  thumbnails: ThumbnailService;
  logger: Logger;
}

/** Hands a change to every listener inside the writing transaction (engine, thumbnails). */
export async function recordChange(
  deps: DomainDeps,
  tx: pg.PoolClient,
  change: DocumentChange,
): Promise<void> {
  await deps.index.recordChange(tx, change);
  await deps.thumbnails.recordChange(tx, change);
}
