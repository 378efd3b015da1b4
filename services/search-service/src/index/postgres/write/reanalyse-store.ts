import type pg from 'pg';
import { collectionLock } from '../layout';

/**
 * The SQL of re-analysis (reanalyse.ts): the analyser state row and the stored documents to
 * re-analyse. Table: migrations/1732800000000_search-analyser-version.sql. Each function runs
 * inside the caller's transaction.
 */

export interface AnalyserState {
  /** the version that made the index's terms */
  version: number;
  /** the version a re-analysis in progress makes (null: none in progress) */
  target: number | null;
  /** the last document done by that re-analysis, in (collection_id, id) order */
  doneCollection: string;
  doneDoc: string;
}

/** The state row, locked until the transaction ends: one re-analysis batch at a time. */
export async function lockAnalyserState(tx: pg.PoolClient): Promise<AnalyserState> {
  const { rows } = await tx.query<{
    version: number;
    target: number | null;
    done_collection: string;
    done_doc: string;
  }>(
    `SELECT version, target, done_collection, done_doc::text FROM search_analyser
      WHERE only_row FOR UPDATE`,
  );
  const row = rows[0];
  if (!row) throw new Error('search_analyser has no row: run the migrations');
  return {
    version: row.version,
    target: row.target,
    doneCollection: row.done_collection,
    doneDoc: row.done_doc,
  };
}

/** Records the progress of the re-analysis to `target` (in the batch's transaction). */
export async function saveProgress(
  tx: pg.PoolClient,
  target: number,
  doneCollection: string,
  doneDoc: string,
): Promise<void> {
  await tx.query(
    `UPDATE search_analyser SET target = $1, done_collection = $2, done_doc = $3::bigint
      WHERE only_row`,
    [target, doneCollection, doneDoc],
  );
}

/** Every stored document has been re-analysed: the index is now of version `version`. */
export async function finishReanalysis(tx: pg.PoolClient, version: number): Promise<void> {
  await tx.query(
    `UPDATE search_analyser SET version = $1, target = NULL, done_collection = '', done_doc = 0
      WHERE only_row`,
    [version],
  );
}

export interface StoredDocument {
  docId: string;
  /** the client's JSON as stored */
  doc: string;
}

/** The collection of the first stored document after (collection, doc); null: none is left. */
export async function nextCollection(
  tx: pg.PoolClient,
  afterCollection: string,
  afterDoc: string,
): Promise<string | null> {
  const { rows } = await tx.query<{ collection_id: string }>(
    `SELECT collection_id FROM documents WHERE (collection_id, id) > ($1, $2::bigint)
      ORDER BY collection_id, id LIMIT 1`,
    [afterCollection, afterDoc],
  );
  return rows[0]?.collection_id ?? null;
}

/**
 * The collection's next `limit` stored documents after documents.id `afterDoc`, locked like an
 * update locks its document: a concurrent update or delete of one of them waits for the batch
 * (and then replaces the terms the batch wrote), or the batch waits for it and reads the
 * document as it left it. First the collection's fold lock is taken shared: deleting the
 * collection (which takes it alone) then waits for the batch and removes the terms it wrote,
 * or goes first and leaves the batch no document.
 */
export async function lockDocuments(
  tx: pg.PoolClient,
  collectionId: string,
  afterDoc: string,
  limit: number,
): Promise<StoredDocument[]> {
  await tx.query(`SELECT pg_advisory_xact_lock_shared(${collectionLock('fold', '$1')})`, [
    collectionId,
  ]);
  const { rows } = await tx.query<{ id: string; doc: string }>(
    `SELECT id::text, doc FROM documents WHERE collection_id = $1 AND id > $2::bigint
      ORDER BY id LIMIT $3 FOR UPDATE`,
    [collectionId, afterDoc, limit],
  );
  return rows.map((r) => ({ docId: r.id, doc: r.doc }));
}
