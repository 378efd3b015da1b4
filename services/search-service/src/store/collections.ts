import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type pg from 'pg';
import { isCollectionId } from '@hub/contracts';
import { sqlState, type Queryable } from '@hub/service-kit';

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
 * number, as Number() did with the bigint's text. The document count is counted from the
 * collection's slots (collection_document_count), or given (a new collection has none: its
 * INSERT cannot see its own row).
 */
const columns = (documentCount = 'collection_document_count(id)') =>
  `id, apikey_hash AS "apikeyHash", max_documents AS "maxDocuments",
  max_api_calls::float8 AS "maxApiCalls", thumbnail_size AS "thumbnailSize",
  ${documentCount} AS "documentCount", created_at AS "createdAt", updated_at AS "updatedAt"`;
const COLUMNS = columns();

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
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING RETURNING ${columns('0')}`,
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
 * What take_document_slot() raises when it takes no slot (see its migrations): SF001, the
 * collection is full; foreign_key_violation, it is gone. The migration of collection_slots is
 * the one place of the slot rule (a free slot of the connection's shard, else one spread from
 * the others under every shard's lock, so parallel adds never pass the maximum).
 */
const NO_SLOT_STATES = new Map<string | undefined, 'full' | 'gone'>([
  ['SF001', 'full'],
  ['23503', 'gone'],
]);

/**
 * take_document_slot() took no slot: the collection is full (max_documents reached), or gone
 * (deleted while the add waited for its row).
 */
export class NoDocumentSlot extends Error {
  constructor(
    readonly why: 'full' | 'gone',
    options?: ErrorOptions,
  ) {
    super(`no document slot: collection ${why}`, options);
  }
}

/**
 * The failure `e` of a statement that takes a slot (the add's one statement, or the slot with
 * the COMMIT) as a NoDocumentSlot when take_document_slot() refused; null otherwise. Nothing
 * else in those statements raises foreign_key_violation: the tables written beside documents
 * have no foreign keys (migration 1732900000220), and the new document's own key is checked
 * when its insert ends, after the slot took a key share of the collection row.
 */
export function noDocumentSlot(e: unknown): NoDocumentSlot | null {
  const why = NO_SLOT_STATES.get(sqlState(e));
  return why ? new NoDocumentSlot(why, { cause: e }) : null;
}

/**
 * The end of an add transaction: take a document slot and COMMIT in one round trip (see the
 * migration of take_document_slot); a failure for want of a slot is a NoDocumentSlot (see
 * noDocumentSlot). The id is inlined, so it must be a checked collection id.
 */
export function commitWithDocumentSlot(collectionId: string): string {
  if (!isCollectionId(collectionId)) throw new Error('not a collection id');
  return `SELECT take_document_slot('${collectionId}'); COMMIT`;
}

/**
 * Locks the collection's document slots until the transaction ends and reads its exact count and
 * maximum (lock_document_slots: it waits for the adds that took a slot and have not committed,
 * and holds off new ones); null when there is no such collection.
 */
export async function lockDocumentSlots(
  tx: Queryable,
  id: string,
): Promise<{ documentCount: number; maxDocuments: number } | null> {
  const { rows } = await tx.query<{ document_count: number; max_documents: number }>({
    name: 'collection-lock-slots',
    text: 'SELECT document_count, max_documents FROM lock_document_slots($1)',
    values: [id],
  });
  return rows[0]
    ? { documentCount: rows[0].document_count, maxDocuments: rows[0].max_documents }
    : null;
}

/**
 * Gives `count` document slots back (documents deleted; below zero: documents counted in) and
 * holds this connection's slot shard until the transaction ends (release_document_slots);
 * false when the collection is gone. A delete calls it before deleting, which is the lock order
 * of a forced add (slots, then documents).
 */
export async function releaseDocumentSlots(
  tx: Queryable,
  id: string,
  count: number,
): Promise<boolean> {
  const { rows } = await tx.query<{ released: boolean }>({
    name: 'collection-release-slots',
    text: 'SELECT release_document_slots($1, $2) AS released',
    values: [id, count],
  });
  return rows[0]!.released;
}

export async function readDocumentCount(db: Queryable, id: string): Promise<number | null> {
  const { rows } = await db.query<{ document_count: number }>({
    name: 'collection-count-read',
    text: 'SELECT collection_document_count($1) AS document_count',
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
