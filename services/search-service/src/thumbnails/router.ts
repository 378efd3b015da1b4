import { Router, type Request, type Response, type NextFunction } from 'express';
import type pg from 'pg';
import { matchesIfNoneMatch } from '@hub/service-kit';

/** A year: the key changes whenever the image changes, so a thumbnail URL never goes stale. */
const CACHE_CONTROL = 'public, max-age=31536000, immutable';

function notFound(res: Response): void {
  res.status(404).type('text/plain; charset=utf-8').send('not found');
}

/**
 * Serves `GET /cse_<collection_id>/<size>/<thumbnail_key>` (and HEAD) from the `thumbnails`
 * table: Content-Type of the stored image, strong ETag = "<thumbnail_key>", immutable cache
 * headers, 304 on a matching If-None-Match, 404 for anything unknown. Mount it at the path of
 * THUMBNAIL_URL, e.g. `app.use('/thumbnails', thumbnailRouter({ pool }))`.
 */
export function thumbnailRouter(opts: { pool: pg.Pool }): Router {
  const router = Router();
  router.get(
    '/cse_:collectionId/:size/:key',
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        const { collectionId, size, key } = req.params as Record<string, string>;
        if (
          !/^[A-Za-z0-9]{1,64}$/.test(collectionId ?? '') ||
          !/^[0-9]{1,4}X[0-9]{1,4}$/.test(size ?? '') ||
          !/^[A-Za-z0-9_-]{43}$/.test(key ?? '')
        ) {
          return notFound(res);
        }
        const etag = `"${key}"`;
        const conditional = matchesIfNoneMatch(req.get('if-none-match'), etag);
        const r = await opts.pool.query<{ content_type: string; image: Buffer | null }>(
          `SELECT content_type, ${conditional ? 'NULL::bytea AS image' : 'image'}
           FROM thumbnails WHERE collection_id = $1 AND thumbnail_key = $2 AND size = $3 LIMIT 1`,
          [collectionId, key, size],
        );
        const row = r.rows[0];
        if (!row) return notFound(res);
        res.set({
          ETag: etag,
          'Cache-Control': CACHE_CONTROL,
          'X-Content-Type-Options': 'nosniff',
        });
        if (conditional) {
          res.status(304).end();
          return;
        }
        res
          .status(200)
          .set({ 'Content-Type': row.content_type, 'Content-Length': String(row.image!.length) });
        res.end(row.image);
      } catch (err) {
        next(err);
      }
    },
  );
  return router;
}
