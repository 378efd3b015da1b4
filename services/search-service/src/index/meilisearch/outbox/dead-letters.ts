import type { Queryable } from '@hub/service-kit';
import { OUTBOX_CHANNEL } from './enqueue';

/**
 * search_outbox_dead_letters: changes that Meilisearch rejected maxRejections times when sent
 * on their own. They no longer count as pending (the collection's other changes flow, and
 * search_status is not held at false by them); operators list them and queue them again.
 */

export interface DeadLetter {
  id: string;
  op: 'upsert' | 'delete';
  collection_id: string;
  meili_id: string;
  dockey: string | null;
  doc_id: string;
  version: string;
  attempts: number;
  last_error: string | null;
  created_at: string;
  dead_at: string;
}

/** Moves outbox rows to the dead letters (in the relay's recording transaction). */
export async function moveToDeadLetters(
  tx: Queryable,
  rowIds: string[],
  lastError: string,
): Promise<number> {
  if (rowIds.length === 0) return 0;
  const r = await tx.query(
    `WITH dead AS (
       DELETE FROM search_outbox WHERE id = ANY($1::bigint[]) AND done_at IS NULL
       RETURNING id, op, collection_id, meili_id, dockey, doc_id, version, payload, force, attempts, created_at)
     INSERT INTO search_outbox_dead_letters
       (outbox_id, op, collection_id, meili_id, dockey, doc_id, version, payload, force, attempts, last_error, created_at)
     SELECT id, op, collection_id, meili_id, dockey, doc_id, version, payload, force, attempts, $2, created_at
       FROM dead`,
    [rowIds, lastError],
  );
  return r.rowCount ?? 0;
}

/** Dead letters of documents whose applied version is now as new or newer are moot. */
export async function forgetSupersededDeadLetters(
  tx: Queryable,
  meiliIds: string[],
): Promise<void> {
  if (meiliIds.length === 0) return;
  await tx.query(
    `DELETE FROM search_outbox_dead_letters d
      USING search_applied_versions a
      WHERE d.meili_id = ANY($1::text[]) AND a.meili_id = d.meili_id
        AND (d.doc_id, d.version, d.op = 'delete') <= (a.doc_id, a.version, a.deleted)`,
    [meiliIds],
  );
}

export async function listDeadLetters(
  db: Queryable,
  opts: { collectionId?: string; after?: string; limit?: number },
): Promise<DeadLetter[]> {
  const r = await db.query<DeadLetter>(
    `SELECT id::text, op, collection_id, meili_id, dockey, doc_id::text, version::text, attempts,
            last_error, to_json(created_at)#>>'{}' AS created_at, to_json(dead_at)#>>'{}' AS dead_at
       FROM search_outbox_dead_letters
      WHERE ($1::text IS NULL OR collection_id = $1) AND ($2::bigint IS NULL OR id > $2)
      ORDER BY id LIMIT $3`,
    [opts.collectionId ?? null, opts.after ?? null, opts.limit ?? 100],
  );
  return r.rows;
}

export async function countDeadLetters(db: Queryable): Promise<number> {
  const r = await db.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM search_outbox_dead_letters`,
  );
  return Number(r.rows[0]!.n);
}

/**
 * Queues dead letters again (all of them, a collection's, or the given ids): each becomes a
 * fresh outbox row (no attempts yet, sent on its own) and the relays are woken. A change that
 * is older than what Meilisearch holds by then is settled as stale, not sent.
 */
export async function retryDeadLetters(
  db: Queryable,
  opts: { collectionId?: string; ids?: string[] },
): Promise<number> {
  const r = await db.query<{ n: string }>(
    `WITH retried AS (
       DELETE FROM search_outbox_dead_letters
        WHERE ($1::text IS NULL OR collection_id = $1) AND ($2::bigint[] IS NULL OR id = ANY($2))
        RETURNING id, op, collection_id, meili_id, dockey, doc_id, version, payload, force),
     queued AS (
       INSERT INTO search_outbox (op, collection_id, meili_id, dockey, doc_id, version, payload, force, isolate)
       SELECT op, collection_id, meili_id, dockey, doc_id, version, payload, force, true
         FROM retried ORDER BY id
       RETURNING id)
     SELECT count(*)::text AS n, (SELECT pg_notify('${OUTBOX_CHANNEL}', '') WHERE EXISTS (SELECT 1 FROM queued))
       FROM queued`,
    [opts.collectionId ?? null, opts.ids ?? null],
  );
  return Number(r.rows[0]!.n);
}
