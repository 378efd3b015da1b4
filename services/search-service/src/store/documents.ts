import pg from 'pg';
import { isCollectionId } from '@hub/contracts';
import type { Queryable } from '@hub/service-kit';
import { noDocumentSlot } from './collections';

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

/** The document of a row with its id and version; null for no row (no such document). */
function refOf(row: { id: unknown; version: unknown } | undefined, dockey: string) {
  return row ? { id: String(row.id), dockey, version: String(row.version) } : null;
}

/** Runs a statement that returns the written document's id and version: its ref, or null. */
async function writeDocument(
  db: Queryable,
  dockey: string,
  statement: pg.QueryConfig,
): Promise<DocumentRef | null> {
  const { rows } = await db.query<{ id: string; version: string }>(statement);
  return refOf(rows[0], dockey);
}

/** A write of a doc by dockey: the document written, or null (none written). */
type DocWrite = (
  tx: Queryable,
  collectionId: string,
  dockey: string,
  doc: string,
) => Promise<DocumentRef | null>;

/** The DocWrite of a prepared statement of ($1 collection id, $2 dockey, $3 doc). */
function docWrite(name: string, text: string): DocWrite {
  return (tx, collectionId, dockey, doc) =>
    writeDocument(tx, dockey, { name, text, values: [collectionId, dockey, doc] });
}

/**
 * Inserts a new document; null when the dockey is already in the collection. A parallel add of
 * the same dockey waits on the unique index until the first one commits or rolls back, so a
 * dockey can never be stored twice.
 */
export const insertDocument = docWrite(
  'document-insert',
  `INSERT INTO documents (collection_id, dockey, doc) VALUES ($1, $2, $3)
   ON CONFLICT ON CONSTRAINT documents_dockey_unique DO NOTHING
   RETURNING id, version`,
);

/**
 * insertDocument as simple-protocol SQL text (values inlined with pg.escapeLiteral), so that it
 * can travel in one round trip with BEGIN (see inTransaction's `first`); read its result with
 * insertedDocument. The collection id must be a checked id.
 */
export function insertDocumentSql(collectionId: string, dockey: string, doc: string): string {
  if (!isCollectionId(collectionId)) throw new Error('not a collection id');
  return `INSERT INTO documents (collection_id, dockey, doc)
    VALUES ('${collectionId}', ${pg.escapeLiteral(dockey)}, ${pg.escapeLiteral(doc)})
    ON CONFLICT ON CONSTRAINT documents_dockey_unique DO NOTHING RETURNING id, version`;
}

/** The result of insertDocumentSql: the new document, or null when the dockey was there. */
export function insertedDocument(result: pg.QueryResult, dockey: string): DocumentRef | null {
  return refOf(result.rows[0] as { id: string; version: string } | undefined, dockey);
}

/** Replaces the whole doc of an existing document (version + 1); null when there is none. */
export const replaceDocument = docWrite(
  'document-replace',
  `UPDATE documents SET doc = $3, version = version + 1, updated_at = now()
   WHERE collection_id = $1 AND dockey = $2 RETURNING id, version`,
);

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
export function deleteDocument(
  tx: Queryable,
  collectionId: string,
  dockey: string,
): Promise<DocumentRef | null> {
  return writeDocument(tx, dockey, {
    name: 'document-delete',
    text: `DELETE FROM documents WHERE collection_id = $1 AND dockey = $2 RETURNING id, version`,
    values: [collectionId, dockey],
  });
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

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Places a value in a statement being composed and answers its placeholder ("$n"). */
export type Placeholder = (value: unknown) => string;

/**
 * A listener's rows of a brand-new document in its add's statement (addInOneStatement): a
 * data-modifying statement that reads the new row from the CTE named `added` (columns id,
 * version), every value placed with `param`. The store composes the statement, names the CTE
 * and numbers the placeholders.
 */
export type AddedDocumentRows = (param: Placeholder, added: string) => string;

/** A brand-new document of an add: its dockey, its doc as stored, and every listener's rows. */
export interface NewDocument {
  dockey: string;
  doc: string;
  listenerRows: AddedDocumentRows[];
}

/**
 * The add statement failed for another reason than a refused slot. It is all or nothing, and
 * Postgres does not say which of its parts failed (an insert or a listener's rows).
 */
export class AddStatementFailed extends Error {}

/**
 * The prepared-statement names of the add statements composed so far, by text. The text
 * depends only on how many documents it adds and which listeners take part (their values are
 * placeholders), so there are a few dozen at most; each is then parsed and planned once per
 * connection instead of once per add (measured: 790 → 535 µs of PostgreSQL CPU per add). Past
 * MAX_ADD_STATEMENTS texts a statement is sent unnamed, so a listener that inlined values
 * could not fill every connection's cache.
 */
const addStatementNames = new Map<string, string>();
const MAX_ADD_STATEMENTS = 64;

function addStatementName(text: string): string | undefined {
  let name = addStatementNames.get(text);
  if (name === undefined && addStatementNames.size < MAX_ADD_STATEMENTS) {
    name = `document-add-${addStatementNames.size}`;
    addStatementNames.set(text, name);
  }
  return name;
}

/**
 * Brand-new documents of one collection added in one statement, its own transaction, in one
 * round trip (one commit): per document, the insert as CTE `added<i>` (no row when its dockey
 * is already in the collection) and its listeners' rows over it; then a document slot for each
 * row inserted, all at once (take_document_slots), which undoes it all when refused: a
 * NoDocumentSlot.
 * Any other failure is an AddStatementFailed. Answers each document's ref in the order given,
 * null where its dockey was there. The dockeys must be distinct: two adds of one dockey are
 * never in one statement (the second must see the first's outcome).
 */
export async function addInOneStatement(
  db: Queryable,
  collectionId: string,
  docs: readonly NewDocument[],
): Promise<(DocumentRef | null)[]> {
  const values: unknown[] = [];
  const param: Placeholder = (value) => `$${values.push(value)}`;
  const collection = param(collectionId);
  const ctes: string[] = [];
  // inserted in dockey order: two statements that insert the same dockeys wait for each other
  // in one order, never each for the other (a deadlock). CTE k holds docs[order[k]], so the
  // text does not depend on the order.
  const order = docs.map((_, i) => i).sort((a, b) => compare(docs[a]!.dockey, docs[b]!.dockey));
  order.forEach((i, k) => {
    const { dockey, doc, listenerRows } = docs[i]!;
    ctes.push(`added${k} AS (INSERT INTO documents (collection_id, dockey, doc)
             VALUES (${collection}, ${param(dockey)}, ${param(doc)})
             ON CONFLICT ON CONSTRAINT documents_dockey_unique DO NOTHING RETURNING id, version)`);
    listenerRows.forEach((rows, j) =>
      ctes.push(`listener${k}_${j} AS (${rows(param, `added${k}`)})`),
    );
  });
  const inserted = order
    .map((_, k) => `SELECT ${k} AS k, id, version FROM added${k}`)
    .join(' UNION ALL ');
  const text = `WITH ${ctes.join(',\n  ')},
           inserted AS (${inserted}),
           slot AS (SELECT take_document_slots(${collection}, (SELECT count(*)::int FROM inserted)))
           SELECT k, id::text AS id, version::text AS version,
                  (SELECT count(*) FROM slot) AS slots FROM inserted`;
  let rows: { k: number; id: string; version: string }[];
  try {
    ({ rows } = await db.query({ name: addStatementName(text), text, values }));
  } catch (e) {
    throw noDocumentSlot(e) ?? new AddStatementFailed('the add statement failed', { cause: e });
  }
  const refs: (DocumentRef | null)[] = docs.map(() => null);
  for (const row of rows) {
    const i = order[row.k]!;
    refs[i] = refOf(row, docs[i]!.dockey);
  }
  return refs;
}
