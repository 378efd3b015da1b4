import type pg from 'pg';
import type { Queryable } from '@hub/service-kit';

/**
 * The bitmap index's SQL for searches and for changes (the folder's is in fold-store.ts).
 * Tables: migrations/1732500000000_bitmap-index.sql.
 */

/** posting list kinds: a word of any icontents field, a word of the title, a category */
export type PostingKind = 'w' | 't' | 'c';

export interface SegmentRef {
  id: string;
  firstDocno: number;
  docCount: number;
  /** its posting lists are packed in the segment row (see packed-segment.ts) */
  packed: boolean;
}

export interface Snapshot {
  /** null: nothing of the collection was ever folded */
  epoch: string | null;
  nextDocno: number;
  segments: SegmentRef[];
  /** [chunk, version] of the collection's deleted bitmaps */
  deleted: Array<[number, number]>;
  tombstones: number[];
  /** pending matches: [documents.id, regdate as text, every term in the title] */
  tail: Array<[number, string, boolean]>;
}

export interface SnapshotFilter {
  terms: string[];
  ca: number[] | null;
  exCa: number[] | null;
  from: string | null;
  to: string | null;
}

export async function readSnapshot(
  db: Queryable,
  collectionId: string,
  f: SnapshotFilter,
): Promise<Snapshot> {
  const { rows } = await db.query({
    name: 'bitmap-snapshot',
    text: 'SELECT * FROM search_snapshot($1, $2::text[], $3::int[], $4::int[], $5, $6)',
    values: [collectionId, f.terms, f.ca, f.exCa, f.from, f.to],
  });
  const r = rows[0] as {
    epoch: string | null;
    next_docno: number | null;
    segments: Array<[number | string, number, number, boolean]> | null;
    deleted: Array<[number, number]> | null;
    tombstones: number[] | null;
    tail: Array<[number, string, boolean]> | null;
  };
  return {
    epoch: r.epoch,
    nextDocno: r.next_docno ?? 0,
    segments: (r.segments ?? []).map(([id, firstDocno, docCount, packed]) => ({
      id: String(id),
      firstDocno,
      docCount,
      packed,
    })),
    deleted: r.deleted ?? [],
    tombstones: r.tombstones ?? [],
    tail: r.tail ?? [],
  };
}

export interface PostingRow {
  segmentId: string;
  kind: PostingKind;
  term: string;
  /** null: the term has no document in the segment */
  data: Buffer | null;
}

/**
 * The posting lists of these (kind, term) keys in these segments: one row per segment and
 * key, data null where the term is absent. A segment that no longer exists has no rows.
 */
export async function readPostings(
  db: Queryable,
  segmentIds: string[],
  keys: Array<{ kind: PostingKind; term: string }>,
): Promise<PostingRow[]> {
  const { rows } = await db.query<{
    segment_id: string;
    kind: PostingKind;
    term: string;
    data: Buffer | null;
  }>({
    name: 'bitmap-postings',
    text: `SELECT s.id::text AS segment_id, k.kind, k.term, p.data
           FROM search_segments s
           CROSS JOIN unnest($2::"char"[], $3::text[]) AS k(kind, term)
           LEFT JOIN search_postings p
             ON p.segment_id = s.id AND p.kind = k.kind AND p.term = k.term COLLATE "C"
           WHERE s.id = ANY($1::bigint[])`,
    values: [segmentIds, keys.map((k) => k.kind), keys.map((k) => k.term)],
  });
  return rows.map((r) => ({ segmentId: r.segment_id, kind: r.kind, term: r.term, data: r.data }));
}

export interface SegmentDocs {
  id: string;
  firstDocno: number;
  docIds: Float64Array;
  regdates: Float64Array;
}

/** The packed posting lists of these segments (a segment that no longer exists is absent). */
export async function readPacked(
  db: Queryable,
  segmentIds: string[],
): Promise<Array<{ id: string; packed: Buffer }>> {
  const { rows } = await db.query<{ id: string; packed: Buffer }>({
    name: 'bitmap-packed',
    text: `SELECT id::text, packed FROM search_segments
           WHERE id = ANY($1::bigint[]) AND packed IS NOT NULL`,
    values: [segmentIds],
  });
  return rows;
}

/** documents.id and regdate of every number of these segments */
export async function readSegmentDocs(db: Queryable, segmentIds: string[]): Promise<SegmentDocs[]> {
  const { rows } = await db.query<{
    id: string;
    first_docno: number;
    doc_ids: Buffer;
    regdates: Buffer;
  }>({
    name: 'bitmap-segment-docs',
    text: `SELECT id::text, first_docno, doc_ids, regdates FROM search_segments
           WHERE id = ANY($1::bigint[]) ORDER BY first_docno`,
    values: [segmentIds],
  });
  return rows.map((r) => ({
    id: r.id,
    firstDocno: r.first_docno,
    docIds: float64s(r.doc_ids),
    regdates: float64s(r.regdates),
  }));
}

/** The collection's deleted bitmaps of these chunks, with their versions. */
export async function readDeleted(
  db: Queryable,
  collectionId: string,
  chunks: number[],
): Promise<Array<{ chunk: number; version: number; bits: Buffer }>> {
  const { rows } = await db.query<{ chunk: number; version: number; bits: Buffer }>({
    name: 'bitmap-deleted',
    text: `SELECT chunk, version, bits FROM search_deleted
           WHERE collection_id = $1 AND chunk = ANY($2::int[])`,
    values: [collectionId, chunks],
  });
  return rows;
}

export function float64s(data: Buffer): Float64Array {
  const out = new Float64Array(data.length >>> 3);
  for (let i = 0; i < out.length; i++) out[i] = data.readDoubleLE(8 * i);
  return out;
}

export function float64Bytes(values: ArrayLike<number>): Buffer {
  const out = Buffer.alloc(values.length * 8);
  for (let i = 0; i < values.length; i++) out.writeDoubleLE(values[i]!, 8 * i);
  return out;
}

// ------------------------------------------------------------------ changes (write path)

/** Terms travel as one text joined by U+0001, which no term contains (see the analyser). */
export const TERM_SEPARATOR = '\u0001';

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
    `string_to_array(${param(d.titleTerms.join(TERM_SEPARATOR))}, E'\\x01')`,
    `string_to_array(${param(d.terms.join(TERM_SEPARATOR))}, E'\\x01')`,
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
export function pendingFromAdded(param: (value: unknown) => string, d: PendingDocument): string {
  return `INSERT INTO search_pending (${PENDING_COLUMNS}) SELECT id, ${pendingValues(d, param)} FROM added`;
}

/** The document leaves the index (its pending row, or its folded number as a tombstone). */
export async function unindex(tx: Queryable, collectionId: string, docId: string): Promise<void> {
  await tx.query({
    name: 'bitmap-unindex',
    text: 'SELECT search_unindex($1, $2)',
    values: [collectionId, docId],
  });
}

/** Advisory lock keys (two-int form): one folder and one merger per collection at a time. */
export const FOLD_LOCK = 0x5f01;
export const MERGE_LOCK = 0x5f02;

/** Everything of the collection's index, after waiting for its folder and merger. */
export async function dropIndex(tx: pg.PoolClient, collectionId: string): Promise<void> {
  await tx.query(
    `SELECT pg_advisory_xact_lock(${FOLD_LOCK}, hashtext($1)),
            pg_advisory_xact_lock(${MERGE_LOCK}, hashtext($1))`,
    [collectionId],
  );
  await tx.query(
    `DELETE FROM search_postings WHERE segment_id IN
       (SELECT id FROM search_segments WHERE collection_id = $1)`,
    [collectionId],
  );
  await tx.query(
    `DELETE FROM search_docnos n USING documents d WHERE d.collection_id = $1 AND n.doc_id = d.id`,
    [collectionId],
  );
  for (const table of [
    'search_segments',
    'search_deleted',
    'search_tombstones',
    'search_pending',
    'search_index_state',
  ]) {
    await tx.query(`DELETE FROM ${table} WHERE collection_id = $1`, [collectionId]);
  }
}
