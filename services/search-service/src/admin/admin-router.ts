import { createHash, timingSafeEqual } from 'node:crypto';
import bodyParser from 'body-parser';
import { Router, type NextFunction, type Request, type Response } from 'express';
import type pg from 'pg';
import { isCollectionId, parseThumbnailSize } from '@hub/contracts';
import type { Logger } from '@hub/service-kit';
import type { SearchIndex } from '../index/search-index';
import type { ThumbnailService } from '../thumbnails/thumbnail-service';
import type { CallLimiter } from '../http/call-limiter';
import { parseForm } from '../http/params';
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
import { inTransaction } from '@hub/service-kit';
import { listDeadLetters, retryDeadLetters } from '../index/meilisearch/outbox/dead-letters';

export interface AdminDeps {
  pool: pg.Pool;
  adminToken: string;
  index: SearchIndex;
  thumbnails: ThumbnailService;
  collections: CollectionDirectory;
  callLimiter: CallLimiter;
  defaults: CollectionLimits;
  logger: Logger;
}

/** An answer of the admin API other than 2xx: status and a JSON {"error": message}. */
class AdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const MAX_DOCUMENTS = 2_000_000_000;

/**
 * The largest max_documents the engine counts exactly: the Meilisearch engine's maxTotalHits
 * (numfound stops there), otherwise MAX_DOCUMENTS.
 */
function maxDocumentsRule(index: SearchIndex): { max: number; why: string } {
  const limit = (index as Partial<{ maxDocumentsLimit: number }>).maxDocumentsLimit;
  if (limit === undefined || limit >= MAX_DOCUMENTS) return { max: MAX_DOCUMENTS, why: '' };
  return {
    max: limit,
    why: ` (the Meilisearch index counts at most ${limit} matches: MEILI_MAX_TOTAL_HITS)`,
  };
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

function sha256(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** JSON or form body → plain fields (form values stay strings). */
function bodyFields(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (!Buffer.isBuffer(body) || body.length === 0) return {};
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw new AdminError(400, 'body is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new AdminError(400, 'body must be a JSON object');
    }
    return parsed as Record<string, unknown>;
  }
  if (type === 'application/x-www-form-urlencoded' || type === '') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of parseForm(body)) out[k] = v.value;
    return out;
  }
  throw new AdminError(415, 'body must be application/json or application/x-www-form-urlencoded');
}

function integerField(
  fields: Record<string, unknown>,
  name: string,
  max: number,
  why = '',
): number | undefined {
  const v = fields[name];
  if (v === undefined || v === null || v === '') return undefined;
  const n =
    typeof v === 'number' ? v : typeof v === 'string' && /^[0-9]+$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < 0 || n > max) {
    throw new AdminError(400, `${name} must be an integer from 0 to ${max}${why}`);
  }
  return n;
}

function limitsOf(
  fields: Record<string, unknown>,
  maxDocumentsLimit: { max: number; why: string },
): Partial<CollectionLimits> {
  const known = new Set(['max_documents', 'max_api_calls', 'thumbnail_size']);
  const unknown = Object.keys(fields).filter((k) => !known.has(k));
  if (unknown.length) throw new AdminError(400, `unknown field: ${unknown.join(', ')}`);
  const out: Partial<CollectionLimits> = {};
  const maxDocuments = integerField(
    fields,
    'max_documents',
    maxDocumentsLimit.max,
    maxDocumentsLimit.why,
  );
  if (maxDocuments !== undefined) out.maxDocuments = maxDocuments;
  const maxApiCalls = integerField(fields, 'max_api_calls', Number.MAX_SAFE_INTEGER);
  if (maxApiCalls !== undefined) out.maxApiCalls = maxApiCalls;
  const size = fields.thumbnail_size;
  if (size !== undefined && size !== null && size !== '') {
    const parsed = typeof size === 'string' ? parseThumbnailSize(size) : null;
    if (!parsed) throw new AdminError(400, 'thumbnail_size must look like 130X130 (16 to 1024)');
    out.thumbnailSize = `${parsed.width}X${parsed.height}`;
  }
  return out;
}

/** `ids` of a retry: a list of dead letter ids (digits), or absent. */
function deadLetterIds(fields: Record<string, unknown>): string[] | undefined {
  const ids = fields.ids;
  if (ids === undefined) return undefined;
  if (
    !Array.isArray(ids) ||
    !ids.every(
      (id) => (typeof id === 'string' && /^[0-9]{1,18}$/.test(id)) || Number.isSafeInteger(id),
    )
  )
    throw new AdminError(400, 'ids must be a list of dead letter ids');
  return ids.map(String);
}

function optionalCollectionId(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !isCollectionId(value))
    throw new AdminError(400, 'collection_id is not a collection id');
  return value;
}

function collectionIdOf(req: Request): string {
  const id = String(req.params.id);
  if (!isCollectionId(id)) throw new AdminError(404, 'collection not found');
  return id;
}

/**
 * The operators' API (registration is out of the spec's scope), under /admin, authenticated by
 * `Authorization: Bearer <SEARCH_ADMIN_TOKEN>`; JSON in and out (bodies may also be forms).
 *   POST   /admin/collections                 → 201 {collection_id, apikey, ...limits}
 *   GET    /admin/collections?limit&after     → 200 {collections: [...], next_after}
 *   GET    /admin/collections/:id             → 200 {...} | 404
 *   PATCH  /admin/collections/:id             → 200 {...} (max_documents, max_api_calls, thumbnail_size)
 *   POST   /admin/collections/:id/rotate-key  → 200 {collection_id, apikey}
 *   DELETE /admin/collections/:id             → 204 (documents and counters too)
 *   GET    /admin/dead-letters?collection_id&limit&after → 200 {dead_letters: [...], next_after}
 *   POST   /admin/dead-letters/retry          → 200 {requeued} ({collection_id?, ids?}; none: all)
 * In Meilisearch mode max_documents is at most the index's maxTotalHits (exact numfound).
 */
export function adminRouter(deps: AdminDeps): Router {
  const router = Router();
  const expected = sha256(deps.adminToken);
  const maxDocuments = maxDocumentsRule(deps.index);

  router.use((req, _res, next) => {
    const header = req.headers.authorization ?? '';
    const m = /^Bearer\s+(.+)$/i.exec(header);
    if (!m || !timingSafeEqual(sha256(m[1]!.trim()), expected)) {
      throw new AdminError(401, 'missing or invalid admin token');
    }
    next();
  });
  router.use(bodyParser.raw({ type: () => true, limit: '64kb' }));

  router.post('/collections', async (req, res) => {
    const limits = { ...deps.defaults, ...limitsOf(bodyFields(req), maxDocuments) };
    if (limits.maxDocuments > maxDocuments.max)
      throw new AdminError(
        400,
        `max_documents must be an integer from 0 to ${maxDocuments.max}${maxDocuments.why}`,
      );
    const { collection, apikey } = await createCollection(deps.pool, limits);
    deps.logger.info({ collectionId: collection.id }, 'collection created');
    const { collection_id, ...rest } = collectionJson(collection);
    res.status(201).json({ collection_id, apikey, ...rest });
  });

  router.get('/collections', async (req, res) => {
    const limitText = typeof req.query.limit === 'string' ? req.query.limit : '100';
    const limit = /^[0-9]{1,4}$/.test(limitText)
      ? Math.min(Math.max(Number(limitText), 1), 1000)
      : 100;
    const after = typeof req.query.after === 'string' ? req.query.after : undefined;
    const list = await listCollections(deps.pool, { limit, after });
    res.json({
      collections: list.map(collectionJson),
      next_after: list.length === limit ? list[list.length - 1]!.id : null,
    });
  });

  router.get('/collections/:id', async (req, res) => {
    const collection = await findCollection(deps.pool, collectionIdOf(req));
    if (!collection) throw new AdminError(404, 'collection not found');
    res.json(collectionJson(collection));
  });

  router.patch('/collections/:id', async (req, res) => {
    const id = collectionIdOf(req);
    const collection = await updateLimits(deps.pool, id, limitsOf(bodyFields(req), maxDocuments));
    if (!collection) throw new AdminError(404, 'collection not found');
    deps.collections.evict(id);
    res.json(collectionJson(collection));
  });

  router.post('/collections/:id/rotate-key', async (req, res) => {
    const id = collectionIdOf(req);
    const apikey = await rotateApiKey(deps.pool, id);
    if (!apikey) throw new AdminError(404, 'collection not found');
    deps.collections.evict(id);
    deps.logger.info({ collectionId: id }, 'collection key rotated');
    res.json({ collection_id: id, apikey });
  });

  router.delete('/collections/:id', async (req, res) => {
    const id = collectionIdOf(req);
    const deleted = await inTransaction(
      deps.pool,
      (e) => e as Error,
      async (tx) => {
        await deps.index.dropCollection?.(tx, id);
        await deps.thumbnails.dropCollection?.(tx, id);
        return deleteCollection(tx, id);
      },
    );
    if (!deleted) throw new AdminError(404, 'collection not found');
    deps.collections.evict(id);
    deps.callLimiter.forget(id);
    deps.logger.info({ collectionId: id }, 'collection deleted');
    res.status(204).end();
  });

  router.get('/dead-letters', async (req, res) => {
    const limitText = typeof req.query.limit === 'string' ? req.query.limit : '100';
    const limit = /^[0-9]{1,4}$/.test(limitText)
      ? Math.min(Math.max(Number(limitText), 1), 1000)
      : 100;
    const afterText = typeof req.query.after === 'string' ? req.query.after : '';
    if (afterText !== '' && !/^[0-9]{1,18}$/.test(afterText))
      throw new AdminError(400, 'after must be a dead letter id');
    const list = await listDeadLetters(deps.pool, {
      collectionId: optionalCollectionId(req.query.collection_id),
      after: afterText || undefined,
      limit,
    });
    res.json({
      dead_letters: list,
      next_after: list.length === limit ? list[list.length - 1]!.id : null,
    });
  });

  router.post('/dead-letters/retry', async (req, res) => {
    const fields = bodyFields(req);
    const unknown = Object.keys(fields).filter((k) => k !== 'collection_id' && k !== 'ids');
    if (unknown.length) throw new AdminError(400, `unknown field: ${unknown.join(', ')}`);
    const requeued = await retryDeadLetters(deps.pool, {
      collectionId: optionalCollectionId(fields.collection_id),
      ids: deadLetterIds(fields),
    });
    deps.logger.info({ requeued }, 'dead letters queued again');
    res.json({ requeued });
  });

  router.use((_req, _res, next) => next(new AdminError(404, 'not found')));
  router.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    let status = 500;
    let message = 'internal error';
    if (err instanceof AdminError) ({ status, message } = err);
    else {
      const s = (err as { status?: unknown } | null)?.status;
      if (typeof s === 'number' && s >= 400 && s < 500) {
        status = s;
        message = s === 413 ? 'body too large' : 'bad request';
      }
    }
    if (status >= 500) deps.logger.error({ reqId: req.id, err }, 'admin request failed');
    if (status === 401) res.set('WWW-Authenticate', 'Bearer');
    res.status(status).json({ error: message });
  });
  return router;
}
