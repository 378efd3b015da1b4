import { createHash } from 'node:crypto';
import type { DocumentChange } from '../search-index';

/** Pure: the service's documents as Meilisearch documents (ids, fields, attributes). */

/** The document stored in Meilisearch (one shared index for every collection). */
export interface MeiliDocument {
  /** meiliDocumentId(collection_id, dockey): [A-Za-z0-9_-], 52 bytes */
  id: string;
  collection_id: string;
  /** documents.id as exact text: search returns it and the domain loads the doc from Postgres */
  doc_id: string;
  /** documents.version as exact text (diagnostics only; ordering is kept by the outbox) */
  version: string;
  dockey: string;
  /** every analysed (icontents_*) field, under one searchable object */
  text: {
    title: string;
    body: string;
    /** user icontents_<name> fields, keyed by <name> */
    fields: Record<string, string>;
  };
  /** [] when the doc has no categories (Meilisearch: `NOT categories IN [..]` then matches) */
  categories: number[];
  /** score_regdate; ≤ 253402300799 < 2^53 so the f64 that Meilisearch keeps is exact */
  score_regdate: number;
  /** documents.id as a number, only to break ties like the Postgres engine (newest id first) */
  doc_seq?: number;
}

export const TITLE_ATTRIBUTE = 'text.title';
export const BODY_ATTRIBUTE = 'text.body';
export const FIELDS_ATTRIBUTE = 'text.fields';

/**
 * Meilisearch document id for (collection, dockey): `<collection_id>-<base64url(sha256(dockey))>`.
 * A dockey may be 1024 arbitrary bytes, Meilisearch ids are [A-Za-z0-9_-]{1,511}: the hash
 * keeps ids short and valid, the collection prefix keeps collections apart.
 */
export function meiliDocumentId(collectionId: string, dockey: string): string {
  if (!/^[A-Za-z0-9_]+$/.test(collectionId))
    throw new Error(`invalid collection id ${collectionId}`);
  const hash = createHash('sha256').update(dockey, 'utf8').digest('base64url');
  return `${collectionId}-${hash}`;
}

/** A non-negative integer as text, without leading zeros (how int8 values travel). */
export const INTEGER_TEXT = /^(0|[1-9][0-9]*)$/;

/** The Meilisearch document of an upsert change (throws on a delete: it has no document). */
export function toMeiliDocument(change: DocumentChange): MeiliDocument {
  const doc = change.doc;
  if (change.op !== 'upsert' || doc === null) throw new Error('only an upsert has a document');
  if (!INTEGER_TEXT.test(doc.regdate) || !Number.isSafeInteger(Number(doc.regdate))) {
    throw new Error(`score_regdate ${doc.regdate} is not an exact f64 integer`);
  }
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(doc.icontents)) {
    if (name === 'icontents_title' || name === 'icontents_body') continue;
    fields[name.slice('icontents_'.length)] = value;
  }
  return {
    id: meiliDocumentId(change.collectionId, change.dockey),
    collection_id: change.collectionId,
    doc_id: change.docId,
    version: change.version,
    dockey: change.dockey,
    text: { title: doc.title, body: doc.body, fields },
    categories: doc.categories ?? [],
    score_regdate: Number(doc.regdate),
    ...(Number.isSafeInteger(Number(change.docId)) ? { doc_seq: Number(change.docId) } : {}),
  };
}
