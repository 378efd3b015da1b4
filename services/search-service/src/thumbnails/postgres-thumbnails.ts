import type pg from 'pg';
import type { AddedDocument } from '../index/search-index';
import { dropCollectionJobs, queueChange } from './jobs';
import { archiveFields, resultFields } from './result-fields';
import type { ThumbnailService } from './thumbnail-service';
import { createThumbnailWorker, type ThumbnailWorker, type ThumbnailWorkerOptions } from './worker';

export { THUMBNAIL_CHANNEL } from './jobs';
export { thumbnailLocation } from './result-fields';

export interface ThumbnailServiceOptions extends ThumbnailWorkerOptions {
  pool: pg.Pool;
  /** THUMBNAIL_URL: public base of the thumbnail router, e.g. https://search.example.com/thumbnails */
  thumbnailUrl: string;
  /** an image given up is tried again on a later change of its doc after this long (default 1 h) */
  retryFailedAfterMs?: number;
}

export interface ThumbnailServiceImpl extends ThumbnailService, ThumbnailWorker {
  start(): void;
  stop(): Promise<void>;
}

/**
 * Thumbnails of contents_image, kept in Postgres: a change queues a job in the write
 * transaction (jobs.ts; the add never waits for the image); the worker (worker.ts) makes and
 * stores the thumbnail; result-fields.ts gives the archive_* fields; router.ts serves them.
 */
export function createThumbnailService(opts: ThumbnailServiceOptions): ThumbnailServiceImpl {
  const retryFailedAfterMs = opts.retryFailedAfterMs ?? 3600_000;
  const worker = createThumbnailWorker(opts);
  return {
    recordChange: (tx, change) => queueChange(tx, change, retryFailedAfterMs),
    // a new document without an image has nothing to queue; one with an image takes recordChange
    addedDocumentSql: (added: AddedDocument) => (added.doc.image ? null : []),
    dropCollection: dropCollectionJobs,
    resultFields: (collectionId, docIds) =>
      resultFields(opts.pool, opts.thumbnailUrl, collectionId, docIds),
    archiveFields: (collectionId, row) => archiveFields(opts.thumbnailUrl, collectionId, row),
    ...worker,
  };
}
