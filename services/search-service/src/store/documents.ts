import pg from 'pg';
import type { ThumbnailRow } from '../thumbnails/thumbnail-service';
import type { Queryable } from '@hub/service-kit';

/** A stored document: documents.id and version as exact text (bigint), the JSON as stored. */
export interface StoredDocument {
  id: string;
  dockey: string;
  version: string;
  /** the doc as stored: the client's JSON, every number with its exact text */
  doc: string;
}

export interface DocumentRef {
  id: string;
  dockey: string;
  version: string;
}

/**
 * Inserts a new document; null when the dockey is already in the collection. A parallel add of
 * the same dockey waits on the unique index until the first one commits or rolls back, so a
 * dockey can never be stored twice.
 */
export async function insertDocument(
  tx: Queryable,
  collectionId: string,
  dockey: string,
  doc: string,
): Promise<DocumentRef | null> {
  const { rows } = await tx.query<{ id: string; version: string }>({
    name: 'document-insert',
    text: `INSERT INTO documents (collection_id, dockey, doc) VALUES ($1, $2, $3)
           ON CONFLICT ON CONSTRAINT documents_dockey_unique DO NOTHING
           RETURNING id, version`,
    values: [collectionId, dockey, doc],
  });
  return rows[0] ? { id: rows[0].id, dockey, version: rows[0].version } : null;
}

/**
 * insertDocument as simple-protocol SQL text (values inlined with pg.escapeLiteral), so that it
 * can travel in one round trip with BEGIN (see inTransaction's `first`); read its result with
 * insertedDocument. The collection id must be a checked id.
 */
export function insertDocumentSql(collectionId: string, dockey: string, doc: string): string {
  if (!/^[A-Za-z0-9]{8}$/.test(collectionId)) throw new Error('not a collection id');
  return `INSERT INTO documents (collection_id, dockey, doc)
    VALUES ('${collectionId}', ${pg.escapeLiteral(dockey)}, ${pg.escapeLiteral(doc)})
    ON CONFLICT ON CONSTRAINT documents_dockey_unique DO NOTHING RETURNING id, version`;
}

/** The result of insertDocumentSql: the new document, or null when the dockey was there. */
export function insertedDocument(result: pg.QueryResult, dockey: string): DocumentRef | null {
  const row = result.rows[0] as { id: string; version: string } | undefined;
  return row ? { id: String(row.id), dockey, version: String(row.version) } : null;
}

/** Replaces the whole doc of an existing document (version + 1); null when there is none. */
export async function replaceDocument(
  tx: Queryable,
  collectionId: string,
  dockey: string,
  doc: string,
): Promise<DocumentRef | null> {
  const { rows } = await tx.query<{ id: string; version: string }>({
    name: 'document-replace',
    text: `UPDATE documents SET doc = $3, version = version + 1, updated_at = now()
           WHERE collection_id = $1 AND dockey = $2 RETURNING id, version`,
    values: [collectionId, dockey, doc],
  });
  return rows[0] ? { id: rows[0].id, dockey, version: rows[0].version } : null;
}

/** Reads a document and locks it until the transaction ends; null when there is none. */
export async function findDocumentForUpdate(
  tx: Queryable,
  collectionId: string,
  dockey: string,
): Promise<StoredDocument | null> {
  const { rows } = await tx.query<StoredDocument>({
    name: 'document-lock',
    text: `SELECT id, dockey, version, doc FROM documents
           WHERE collection_id = $1 AND dockey = $2 FOR UPDATE`,
    values: [collectionId, dockey],
  });
  return rows[0] ?? null;
}

/** Stores a new doc for a document found by id (version + 1). */
export async function updateDocumentById(tx: Queryable, id: string, doc: string): Promise<string> {
  const { rows } = await tx.query<{ version: string }>({
    name: 'document-update-by-id',
    text: `UPDATE documents SET doc = $2, version = version + 1, updated_at = now()
           WHERE id = $1 RETURNING version`,
    values: [id, doc],
  });
  return rows[0]!.version;
}

/** Deletes one document by dockey; null when there is none. */
export async function deleteDocument(
  tx: Queryable,
  collectionId: string,
  dockey: string,
): Promise<DocumentRef | null> {
  const { rows } = await tx.query<{ id: string; version: string }>({
    name: 'document-delete',
    text: `DELETE FROM documents WHERE collection_id = $1 AND dockey = $2 RETURNING id, version`,
    values: [collectionId, dockey],
  });
  return rows[0] ? { id: rows[0].id, dockey, version: rows[0].version } : null;
}

/**
 * Deletes the `count` oldest (earliest added) documents of a collection, except `keepId`, and
 * returns them. The caller holds the collection row lock, so no delete runs in parallel.
 */
export async function deleteOldestDocuments(
  tx: Queryable,
  collectionId: string,
  count: number,
  keepId: string,
): Promise<DocumentRef[]> {
  const { rows } = await tx.query<DocumentRef>({
    name: 'document-delete-oldest',
    text: `DELETE FROM documents WHERE id IN (
             SELECT id FROM documents WHERE collection_id = $1 AND id <> $3
             ORDER BY id LIMIT $2 FOR UPDATE)
           RETURNING id, dockey, version`,
    values: [collectionId, count, keepId],
  });
  return rows;
}

/** The stored documents with these ids (any order; ids that no longer exist are absent). */
export async function loadDocuments(
  db: Queryable,
  collectionId: string,
  ids: readonly string[],
): Promise<Map<string, StoredDocument>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<StoredDocument>({
    name: 'document-load',
    text: `SELECT id, dockey, version, doc FROM documents
           WHERE id = ANY($1::bigint[]) AND collection_id = $2`,
    values: [ids, collectionId],
  });
  return new Map(rows.map((r) => [r.id, r]));
}

/** Values of the listeners' statements in addInOneStatement, numbered after its own three. */
export class AddStatementParams {
  readonly values: unknown[] = [];
  /** the placeholder of `value` */
  readonly param = (value: unknown): string => `$${3 + this.values.push(value)}`;
}

/**
 * A brand-new document's whole add as one statement, its own transaction, in one round trip:
 * the insert (no row when the dockey is already in the collection), the listeners' statements
 * over the CTE `added` (their values in `params`), and a document slot (take_document_slot
 * fails with COLLECTION_FULL when there is no room, which undoes it all). Null when the dockey
 * was there.
 */
export async function addInOneStatement(
  db: Queryable,
  collectionId: string,
  dockey: string,
  doc: string,
  listenerSql: string[],
  params: AddStatementParams,
): Promise<DocumentRef | null> {
  const listeners = listenerSql
    .filter((sql) => sql !== '')
    .map((sql, i) => `, listener${i} AS (${sql})`)
    .join('');
  const { rows } = await db.query<{ id: string; version: string }>({
    text: `WITH added AS (
             INSERT INTO documents (collection_id, dockey, doc) VALUES ($1, $2, $3)
             ON CONFLICT ON CONSTRAINT documents_dockey_unique DO NOTHING RETURNING id, version),
           slot AS (SELECT take_document_slot($1) FROM added)${listeners}
           SELECT id::text, version::text, (SELECT count(*) FROM slot) AS slots FROM added`,
    values: [collectionId, dockey, doc, ...params.values],
  });
  return rows[0] ? { id: rows[0].id, dockey, version: rows[0].version } : null;
}

/** A stored document with its thumbnail, if it has one (see loadDocumentsWithThumbnails). */
export interface StoredDocumentWithThumbnail extends StoredDocument {
  thumbnail: ThumbnailRow | null;
}

/** loadDocuments and the documents' thumbnails in one query. */
export async function loadDocumentsWithThumbnails(
  db: Queryable,
  collectionId: string,
  ids: readonly string[],
): Promise<Map<string, StoredDocumentWithThumbnail>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<
    StoredDocument & {
      size: string | null;
      thumbnail_key: string;
      source_url: string;
      source_width: number;
      source_height: number;
    }
  >({
    name: 'document-load-with-thumbnails',
    text: `SELECT d.id, d.dockey, d.version, d.doc,
                  t.size, t.thumbnail_key, t.source_url, t.source_width, t.source_height
           FROM documents d
           LEFT JOIN thumbnails t ON t.collection_id = d.collection_id AND t.doc_id = d.id
           WHERE d.id = ANY($1::bigint[]) AND d.collection_id = $2`,
    values: [ids, collectionId],
  });
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        dockey: r.dockey,
        version: r.version,
        doc: r.doc,
        thumbnail: r.size
          ? {
              size: r.size,
              thumbnailKey: r.thumbnail_key,
              sourceUrl: r.source_url,
              sourceWidth: r.source_width,
              sourceHeight: r.source_height,
            }
          : null,
      },
    ]),
  );
}
