import type pg from 'pg';
import type { Queryable } from '@hub/service-kit';
import { collectionLock, TERM_SEPARATOR, TERM_SEPARATOR_SQL } from '../layout';

/**
 * The bitmap index's SQL for changes (the write path): a changed document's terms become
 * pending in the document's own transaction, its older entry leaves the index, and a deleted
 * collection's index goes. Tables: migrations/1732500000000_bitmap-index.sql.
 */

export interface PendingDocument {
  collectionId: string;
  regdate: string;
  categories: number[];
  titleTerms: string[];
  terms: string[];
}

const PENDING_COLUMNS = 'doc_id, collection_id, regdate, categories, title_terms, terms';

function pendingValues(d: PendingDocument, param: (value: unknown) => string): string {
  return [
    param(d.collectionId),
    `${param(d.regdate)}::bigint`,
    `${param(d.categories)}::int[]`,
    `string_to_array(${param(d.titleTerms.join(TERM_SEPARATOR))}, ${TERM_SEPARATOR_SQL})`,
    `string_to_array(${param(d.terms.join(TERM_SEPARATOR))}, ${TERM_SEPARATOR_SQL})`,
  ].join(', ');
}

/** A new or changed document becomes pending: searchable as soon as its transaction commits. */
export async function insertPending(
  tx: Queryable,
  docId: string,
  d: PendingDocument,
): Promise<void> {
  const values: unknown[] = [docId];
  const param = (v: unknown) => `$${values.push(v)}`;
  await tx.query({
    name: 'bitmap-pending-insert',
    text: `INSERT INTO search_pending (${PENDING_COLUMNS}) VALUES ($1, ${pendingValues(d, param)})`,
    values,
  });
}

/** insertPending for a document being added in one statement (its row is in CTE `added`). */
export function pendingFromAdded(
  param: (value: unknown) => string,
  added: string,
  d: PendingDocument,
): string {
  return `INSERT INTO search_pending (${PENDING_COLUMNS}) SELECT id, ${pendingValues(d, param)} FROM ${added}`;
}

/** The document leaves the index (its pending row, or its folded number as a tombstone). */
export async function unindex(tx: Queryable, collectionId: string, docId: string): Promise<void> {
  await tx.query({
    name: 'bitmap-unindex',
    text: 'SELECT search_unindex($1, $2)',
    values: [collectionId, docId],
  });
}

/**
 * Waits for the collection's fold, merge and re-analysis batch under way and holds new ones off
 * until the transaction ends (they take these locks; the re-analysis the fold lock shared).
 */
export async function holdIndex(tx: pg.PoolClient, collectionId: string): Promise<void> {
  await tx.query(
    `SELECT pg_advisory_xact_lock(${collectionLock('fold', '$1')}),
            pg_advisory_xact_lock(${collectionLock('merge', '$1')})`,
    [collectionId],
  );
}

/**
 * Everything of the collection's index, after waiting for its folder and merger. Deleting the
 * collection calls it after the collection row and its documents went: every writer of the
 * collection has then ended, so these statements see all it wrote and no one writes more.
 */
export async function dropIndex(tx: pg.PoolClient, collectionId: string): Promise<void> {
  await holdIndex(tx, collectionId);
  await tx.query(
    `DELETE FROM search_postings WHERE segment_id IN
       (SELECT id FROM search_segments WHERE collection_id = $1)`,
    [collectionId],
  );
  for (const table of [
    'search_segments',
    'search_docnos',
    'search_deleted',
    'search_tombstones',
    'search_pending',
    'search_index_state',
  ]) {
    await tx.query(`DELETE FROM ${table} WHERE collection_id = $1`, [collectionId]);
  }
}

/**
 * What is left of the index of a collection that no longer exists (true), or nothing when it
 * exists (false). The folder calls it when a fold or merge found its collection gone.
 */
export async function dropIndexOfDeleted(
  tx: pg.PoolClient,
  collectionId: string,
): Promise<boolean> {
  const { rowCount } = await tx.query('SELECT 1 FROM collections WHERE id = $1 FOR KEY SHARE', [
    collectionId,
  ]);
  if (rowCount) return false;
  await dropIndex(tx, collectionId);
  return true;
}
