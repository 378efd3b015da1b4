import type { RequestHandler } from 'express';
import type pg from 'pg';
import type { Logger } from '@hub/service-kit';
import { listDeadLetters, retryDeadLetters } from '../index/meilisearch/outbox/dead-letters';
import { AdminError } from './admin-error';
import {
  bodyFields,
  deadLetterIds,
  nextAfter,
  onlyFields,
  optionalCollectionId,
  pageLimit,
} from './request-fields';

/** The handlers of /admin/dead-letters: the Meilisearch outbox's dead letters (see admin-router.ts). */
export interface DeadLetterRoutes {
  list: RequestHandler;
  retry: RequestHandler;
}

export function createDeadLetterRoutes(deps: { pool: pg.Pool; logger: Logger }): DeadLetterRoutes {
  return {
    async list(req, res) {
      const limit = pageLimit(req);
      const afterText = typeof req.query.after === 'string' ? req.query.after : '';
      if (afterText !== '' && !/^[0-9]{1,18}$/.test(afterText))
        throw new AdminError(400, 'after must be a dead letter id');
      const list = await listDeadLetters(deps.pool, {
        collectionId: optionalCollectionId(req.query.collection_id),
        after: afterText || undefined,
        limit,
      });
      res.json({ dead_letters: list, next_after: nextAfter(list, limit) });
    },

    async retry(req, res) {
      const fields = bodyFields(req);
      onlyFields(fields, ['collection_id', 'ids']);
      const requeued = await retryDeadLetters(deps.pool, {
        collectionId: optionalCollectionId(fields.collection_id),
        ids: deadLetterIds(fields),
      });
      deps.logger.info({ requeued }, 'dead letters queued again');
      res.json({ requeued });
    },
  };
}
