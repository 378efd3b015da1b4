import type pg from 'pg';
import type { DocumentChange } from '../../search-index';
import { meiliDocumentId, toMeiliDocument } from '../mapping';

/** NOTIFY channel of search_outbox (the payload is empty: the relay reads the table). */
export const OUTBOX_CHANNEL = 'search_outbox';

/**
 * Records one document change in the caller's transaction: the outbox row commits (or rolls
 * back) with the document, and the NOTIFY is delivered at commit, waking the relays. One round
 * trip.
 */
export async function recordOutboxChange(
  tx: pg.PoolClient,
  change: DocumentChange,
  opts: { force?: boolean; notify?: boolean } = {},
): Promise<void> {
  const payload = change.op === 'upsert' ? JSON.stringify(toMeiliDocument(change)) : null;
  // notify: false leaves the wake-up to the relay's poll (NOTIFY serialises the commits that
  // send one; see docs/meilisearch-and-thumbnails.md)
  const notify = opts.notify ?? true;
  await tx.query(
    `WITH row AS (
       INSERT INTO search_outbox (op, collection_id, meili_id, dockey, doc_id, version, payload, force)
       VALUES ($1, $2, $3, $4, $5::bigint, $6::bigint, $7::jsonb, $8)
       RETURNING id)
     SELECT ${notify ? `pg_notify('${OUTBOX_CHANNEL}', '')` : 'id'} FROM row`,
    [
      change.op,
      change.collectionId,
      meiliDocumentId(change.collectionId, change.dockey),
      change.dockey,
      change.docId,
      change.version,
      payload,
      opts.force ?? false,
    ],
  );
}

/**
 * A whole collection is being deleted: its pending changes are moot, and one 'drop' row makes
 * the relay delete its documents from the index (by filter), its dead letters go. Later
 * changes of a collection with the same id wait until that drop is done.
 */
export async function recordOutboxDrop(tx: pg.PoolClient, collectionId: string): Promise<void> {
  await tx.query(
    `UPDATE search_outbox SET done_at = clock_timestamp(), last_error = 'collection dropped'
      WHERE collection_id = $1 AND done_at IS NULL AND op <> 'drop'`,
    [collectionId],
  );
  await tx.query(`DELETE FROM search_outbox_dead_letters WHERE collection_id = $1`, [collectionId]);
  await tx.query(
    `WITH row AS (
       INSERT INTO search_outbox (op, collection_id, meili_id) VALUES ('drop', $1, $1) RETURNING id)
     SELECT pg_notify('${OUTBOX_CHANNEL}', '') FROM row`,
    [collectionId],
  );
}

/**
 * Many changes in one statement (reindex): forced rows, re-sent even at the version
 * Meilisearch already holds, never over a newer one.
 */
export async function recordOutboxChanges(
  db: Pick<pg.Pool | pg.PoolClient, 'query'>,
  changes: DocumentChange[],
  opts: { force?: boolean } = {},
): Promise<void> {
  if (changes.length === 0) return;
  await db.query(
    `WITH rows AS (
       INSERT INTO search_outbox (op, collection_id, meili_id, dockey, doc_id, version, payload, force)
       SELECT op, c, m, k, d, v, p, $8
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::jsonb[])
              AS u(op, c, m, k, d, v, p)
       RETURNING id)
     SELECT pg_notify('${OUTBOX_CHANNEL}', '') WHERE EXISTS (SELECT 1 FROM rows)`,
    [
      changes.map((c) => c.op),
      changes.map((c) => c.collectionId),
      changes.map((c) => meiliDocumentId(c.collectionId, c.dockey)),
      changes.map((c) => c.dockey),
      changes.map((c) => c.docId),
      changes.map((c) => c.version),
      changes.map((c) => (c.op === 'upsert' ? JSON.stringify(toMeiliDocument(c)) : null)),
      opts.force ?? false,
    ],
  );
}
