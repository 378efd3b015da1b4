import { createHash, timingSafeEqual } from 'node:crypto';
import bodyParser from 'body-parser';
import { Router } from 'express';
import { AdminError, adminErrorHandler } from './admin-error';
import { createCollectionRoutes, type CollectionAdminDeps } from './collections';
import { createDeadLetterRoutes } from './dead-letters';

export interface AdminDeps extends CollectionAdminDeps {
  adminToken: string;
}

function sha256(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
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
 * Handlers: collections.ts and dead-letters.ts; what they read is checked in request-fields.ts.
 */
export function adminRouter(deps: AdminDeps): Router {
  const router = Router();
  const expected = sha256(deps.adminToken);
  const collections = createCollectionRoutes(deps);
  const deadLetters = createDeadLetterRoutes(deps);

  router.use((req, _res, next) => {
    const header = req.headers.authorization ?? '';
    const m = /^Bearer\s+(.+)$/i.exec(header);
    if (!m || !timingSafeEqual(sha256(m[1]!.trim()), expected)) {
      throw new AdminError(401, 'missing or invalid admin token');
    }
    next();
  });
  router.use(bodyParser.raw({ type: () => true, limit: '64kb' }));

  router.post('/collections', collections.create);
  router.get('/collections', collections.list);
  router.get('/collections/:id', collections.get);
  router.patch('/collections/:id', collections.update);
  router.post('/collections/:id/rotate-key', collections.rotateKey);
  router.delete('/collections/:id', collections.remove);
  router.get('/dead-letters', deadLetters.list);
  router.post('/dead-letters/retry', deadLetters.retry);

  router.use((_req, _res, next) => next(new AdminError(404, 'not found')));
  router.use(adminErrorHandler(deps.logger));
  return router;
}
