import type { RequestHandler } from 'express';
import type pg from 'pg';
import { asIs, inTransaction, type Logger } from '@hub/service-kit';
import type { CallLimiter } from '../http/call-limiter';
import type { SearchIndex } from '../index/search-index';
import {
  createCollection,
  deleteCollection,
  findCollection,
  listCollections,
  rotateApiKey,
  updateLimits,
  type Collection,
  type CollectionDirectory,
  type CollectionLimits,
} from '../store/collections';
import type { ThumbnailService } from '../thumbnails/thumbnail-service';
import { AdminError } from './admin-error';
import {
  bodyFields,
  collectionIdOf,
  limitsOf,
  maxDocumentsRule,
  nextAfter,
  outOfRange,
  pageLimit,
} from './request-fields';

export interface CollectionAdminDeps {
  pool: pg.Pool;
  index: SearchIndex;
  thumbnails: ThumbnailService;
  collections: CollectionDirectory;
  callLimiter: CallLimiter;
  defaults: CollectionLimits;
  logger: Logger;
}

/** The admin view of a collection (never the key; the key is shown once, when issued). */
export function collectionJson(c: Collection) {
  return {
    collection_id: c.id,
    max_documents: c.maxDocuments,
    max_api_calls: c.maxApiCalls,
    thumbnail_size: c.thumbnailSize,
    document_count: c.documentCount,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

/** The handlers of /admin/collections (see admin-router.ts for the paths). */
export interface CollectionRoutes {
  create: RequestHandler;
  list: RequestHandler;
  get: RequestHandler;
  update: RequestHandler;
  rotateKey: RequestHandler;
  remove: RequestHandler;
}

export function createCollectionRoutes(deps: CollectionAdminDeps): CollectionRoutes {
  const maxDocuments = maxDocumentsRule(deps.index);

  return {
    async create(req, res) {
      const limits = { ...deps.defaults, ...limitsOf(bodyFields(req), maxDocuments) };
      // a default beyond what the engine counts is refused like a given value
      if (limits.maxDocuments > maxDocuments.max)
        throw outOfRange('max_documents', maxDocuments.max, maxDocuments.why);
      const { collection, apikey } = await createCollection(deps.pool, limits);
      deps.logger.info({ collectionId: collection.id }, 'collection created');
      const { collection_id, ...rest } = collectionJson(collection);
      res.status(201).json({ collection_id, apikey, ...rest });
    },

    async list(req, res) {
      const limit = pageLimit(req);
      const after = typeof req.query.after === 'string' ? req.query.after : undefined;
      const list = await listCollections(deps.pool, { limit, after });
      res.json({ collections: list.map(collectionJson), next_after: nextAfter(list, limit) });
    },

    async get(req, res) {
      const collection = await findCollection(deps.pool, collectionIdOf(req));
      if (!collection) throw new AdminError(404, 'collection not found');
      res.json(collectionJson(collection));
    },

    async update(req, res) {
      const id = collectionIdOf(req);
      const collection = await updateLimits(deps.pool, id, limitsOf(bodyFields(req), maxDocuments));
      if (!collection) throw new AdminError(404, 'collection not found');
      deps.collections.evict(id);
      res.json(collectionJson(collection));
    },

    async rotateKey(req, res) {
      const id = collectionIdOf(req);
      const apikey = await rotateApiKey(deps.pool, id);
      if (!apikey) throw new AdminError(404, 'collection not found');
      deps.collections.evict(id);
      deps.logger.info({ collectionId: id }, 'collection key rotated');
      res.json({ collection_id: id, apikey });
    },

    /**
     * The collection with its documents, engine and thumbnail rows, and call counters, in one
     * transaction: the engine's folder and merger of it end first; deleting the collection row
     * then waits for every write of it under way (a write holds its document or a key share
     * of the collection row) and makes later ones fail; only then do the engine and the
     * thumbnails drop what they keep, so they see all those writes and nothing comes after.
     */
    async remove(req, res) {
      const id = collectionIdOf(req);
      const deleted = await inTransaction(deps.pool, asIs, async (tx) => {
        await deps.index.holdCollection?.(tx, id);
        if (!(await deleteCollection(tx, id))) return false;
        await deps.index.dropCollection?.(tx, id);
        await deps.thumbnails.dropCollection?.(tx, id);
        return true;
      });
      if (!deleted) throw new AdminError(404, 'collection not found');
      deps.collections.evict(id);
      deps.callLimiter.forget(id);
      deps.logger.info({ collectionId: id }, 'collection deleted');
      res.status(204).end();
    },
  };
}
