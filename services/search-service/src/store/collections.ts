import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type pg from 'pg';
import { isCollectionId } from '@hub/contracts';
import type { Queryable } from '@hub/service-kit';

export interface Collection {
  id: string;
  apikeyHash: Buffer;
  maxDocuments: number;
  maxApiCalls: number;
  thumbnailSize: string;
  documentCount: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface CollectionLimits {
  maxDocuments: number;
  maxApiCalls: number;
  thumbnailSize: string;
}

/**
 * The columns of a Collection under its field names, so rows are Collections as they come.
 * max_api_calls (bigint, at most 2^53 − 1) is read as float8, which pg parses into an exact
 * number, as Number() did with the bigint's text.
 */
const COLUMNS = `id, apikey_hash AS "apikeyHash", max_documents AS "maxDocuments",
  max_api_calls::float8 AS "maxApiCalls", thumbnail_size AS "thumbnailSize",
  document_count AS "documentCount", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** SHA-256 of the key (hex digits compared case-insensitively: the key is lower-cased). */
export function hashApiKey(apikey: string): Buffer {
  return createHash('sha256').update(apikey.toLowerCase(), 'utf8').digest();
}

/** Constant-time comparison of a presented key with the stored hash. */
export function apiKeyMatches(collection: Pick<Collection, 'apikeyHash'>, apikey: string): boolean {
  const presented = hashApiKey(apikey);
  return (
    presented.length === collection.apikeyHash.length &&
    timingSafeEqual(presented, collection.apikeyHash)
  );
}

/** A new API key: 32 lower-case hex digits (the spec's MD5-hash form), 128 random bits. */
export function newApiKey(): string {
  return randomBytes(16).toString('hex');
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A new collection id: 8 random letters and digits. */
export function newCollectionId(): string {
  let id = '';
  for (let i = 0; i < 8; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
}

export async function findCollection(db: Queryable, id: string): Promise<Collection | null> {
  const { rows } = await db.query<Collection>({
    name: 'collection-find',
    text: `SELECT ${COLUMNS} FROM collections WHERE id = $1`,
    values: [id],
  });
  return rows[0] ?? null;
}

export async function createCollection(
  db: Queryable,
  limits: CollectionLimits,
): Promise<{ collection: Collection; apikey: string }> {
  const apikey = newApiKey();
  for (let attempt = 0; ; attempt++) {
    const { rows } = await db.query<Collection>(
      `INSERT INTO collections (id, apikey_hash, max_documents, max_api_calls, thumbnail_size)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING RETURNING ${COLUMNS}`,
      [
        newCollectionId(),
        hashApiKey(apikey),
        limits.maxDocuments,
        limits.maxApiCalls,
        limits.thumbnailSize,
      ],
    );
    if (rows[0]) return { collection: rows[0], apikey };
    if (attempt > 10) throw new Error('could not find a free collection id');
  }
}

export async function listCollections(
  db: Queryable,
  opts: { limit: number; after?: string },
): Promise<Collection[]> {
  const { rows } = await db.query<Collection>(
    `SELECT ${COLUMNS} FROM collections WHERE ($1::text IS NULL OR id > $1) ORDER BY id LIMIT $2`,
    [opts.after ?? null, opts.limit],
  );
  return rows;
}

/** Gives the collection a new key (the old one stops working); null when it does not exist. */
export async function rotateApiKey(db: Queryable, id: string): Promise<string | null> {
  const apikey = newApiKey();
  const { rowCount } = await db.query(
    'UPDATE collections SET apikey_hash = $2, updated_at = now() WHERE id = $1',
    [id, hashApiKey(apikey)],
  );
  return rowCount ? apikey : null;
}

export async function updateLimits(
  db: Queryable,
  id: string,
  patch: Partial<CollectionLimits>,
): Promise<Collection | null> {
  const { rows } = await db.query<Collection>(
    `UPDATE collections SET
       max_documents = coalesce($2, max_documents),
       max_api_calls = coalesce($3, max_api_calls),
       thumbnail_size = coalesce($4, thumbnail_size),
       updated_at = now()
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, patch.maxDocuments ?? null, patch.maxApiCalls ?? null, patch.thumbnailSize ?? null],
  );
  return rows[0] ?? null;
}

/**
 * Deletes the collection with what refers to it by foreign key (documents, call counters, the
 * Postgres engine's segments and state: see the migrations). Waits for the transactions that
 * write to it (they hold a key share of its row or a row of its documents); once it is
 * deleted, no document can be written to it any more. False when there was no such collection.
 */
export async function deleteCollection(tx: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await tx.query('DELETE FROM collections WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}

/**
 * Takes one document slot: document_count + 1 when it is below max_documents. The row lock of
 * this UPDATE is held until the transaction ends, so parallel adds take slots one by one and
 * the count can never pass the maximum. False when the collection is full.
 */
export async function takeDocumentSlot(tx: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await tx.query({
    name: 'collection-take-slot',
    text: `UPDATE collections SET document_count = document_count + 1
           WHERE id = $1 AND document_count < max_documents`,
    values: [id],
  });
  return (rowCount ?? 0) > 0;
}

/** SQLSTATE of take_document_slot() when the collection is full. */
export const COLLECTION_FULL = 'SF001';

/**
 * The end of an add transaction: take a document slot and COMMIT in one round trip (see the
 * migration of take_document_slot). Fails with SQLSTATE COLLECTION_FULL when there is no room;
 * the id is inlined, so it must be a checked collection id.
 */
export function commitWithDocumentSlot(collectionId: string): string {
  if (!isCollectionId(collectionId)) throw new Error('not a collection id');
  return `SELECT take_document_slot('${collectionId}'); COMMIT`;
}

/**
 * Locks the collection row (until the transaction ends) and reads its count and maximum. NO KEY
 * UPDATE: it queues behind slot takers and deleters, but not behind transactions that merely
 * insert documents (their foreign key holds a KEY SHARE lock on this row), which would
 * deadlock with a forced add waiting here.
 */
export async function lockCollection(
  tx: Queryable,
  id: string,
): Promise<{ documentCount: number; maxDocuments: number } | null> {
  const { rows } = await tx.query<{ document_count: number; max_documents: number }>({
    name: 'collection-lock',
    text: 'SELECT document_count, max_documents FROM collections WHERE id = $1 FOR NO KEY UPDATE',
    values: [id],
  });
  return rows[0]
    ? { documentCount: rows[0].document_count, maxDocuments: rows[0].max_documents }
    : null;
}

/** Changes document_count by delta (the caller holds or takes the row lock). */
export async function changeDocumentCount(tx: Queryable, id: string, delta: number): Promise<void> {
  await tx.query({
    name: 'collection-count',
    text: 'UPDATE collections SET document_count = document_count + $2 WHERE id = $1',
    values: [id, delta],
  });
}

export async function readDocumentCount(db: Queryable, id: string): Promise<number | null> {
  const { rows } = await db.query<{ document_count: number }>({
    name: 'collection-count-read',
    text: 'SELECT document_count FROM collections WHERE id = $1',
    values: [id],
  });
  return rows[0]?.document_count ?? null;
}

/**
 * Collections as the request path reads them: from memory for at most `ttlMs` (0: always from
 * the database). Unknown ids are never cached, so a new collection works at once; changes made
 * through this instance's admin API evict the entry at once, changes made through another
 * instance are seen within `ttlMs`.
 */
export interface CollectionDirectory {
  get(id: string): Promise<Collection | null>;
  /** Drops the cached entry (the collection was changed or deleted through this instance). */
  evict(id: string): void;
}

export function createCollectionDirectory(deps: {
  pool: pg.Pool;
  ttlMs: number;
}): CollectionDirectory {
  const { pool, ttlMs } = deps;
  const cache = new Map<string, { collection: Collection; until: number }>();
  return {
    async get(id) {
      const now = Date.now();
      const hit = cache.get(id);
      if (hit && hit.until > now) return hit.collection;
      const collection = await findCollection(pool, id);
      if (collection && ttlMs > 0) {
        if (cache.size > 10_000) cache.clear();
        cache.set(id, { collection, until: now + ttlMs });
      } else cache.delete(id);
      return collection;
    },
    evict(id) {
      cache.delete(id);
    },
  };
}
