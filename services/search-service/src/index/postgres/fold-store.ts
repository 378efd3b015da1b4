import type pg from 'pg';
import { FOLD_LOCK, MERGE_LOCK, readPacked, TERM_SEPARATOR, type PostingKind } from './index-store';
import { unpackPostings } from './packed-segment';
import type { FoldInput, MergePart, PostingList } from './segment-builder';

/**
 * The folder's SQL: each function runs inside the caller's transaction (see folder.ts), which
 * first takes the collection's fold or merge lock. Nothing here commits.
 */

/** Takes the collection's fold (or merge) lock for this transaction; false when another has it. */
export async function tryLock(
  tx: pg.PoolClient,
  which: 'fold' | 'merge',
  collectionId: string,
): Promise<boolean> {
  const key = which === 'fold' ? FOLD_LOCK : MERGE_LOCK;
  const { rows } = await tx.query<{ ok: boolean }>(
    `SELECT pg_try_advisory_xact_lock(${key}, hashtext($1)) AS ok`,
    [collectionId],
  );
  return rows[0]!.ok;
}

/** Collections with documents to fold or tombstones to apply, and the pending count of each. */
export async function collectionsWithWork(
  db: pg.Pool,
): Promise<Array<{ collectionId: string; pending: number }>> {
  const { rows } = await db.query<{ collection_id: string; pending: string }>(
    `SELECT collection_id, sum(n)::text AS pending FROM (
       SELECT collection_id, count(*) AS n FROM search_pending GROUP BY 1
       UNION ALL
       SELECT collection_id, 0 FROM search_tombstones GROUP BY 1) w
     GROUP BY 1 ORDER BY 2 DESC LIMIT 1000`,
  );
  return rows.map((r) => ({ collectionId: r.collection_id, pending: Number(r.pending) }));
}

/** The oldest pending documents of the collection, locked (rows another transaction holds are skipped). */
export async function claimPending(
  tx: pg.PoolClient,
  collectionId: string,
  limit: number,
): Promise<FoldInput[]> {
  const { rows } = await tx.query<{
    doc_id: string;
    regdate: string;
    categories: number[];
    title_terms: string;
    terms: string;
  }>(
    `SELECT doc_id::text, regdate::text, categories,
            array_to_string(title_terms, E'\\x01') AS title_terms,
            array_to_string(terms, E'\\x01') AS terms
     FROM search_pending WHERE collection_id = $1
     ORDER BY doc_id LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [collectionId, limit],
  );
  const split = (s: string) => (s ? s.split(TERM_SEPARATOR) : []);
  return rows.map((r) => ({
    docId: r.doc_id,
    regdate: Number(r.regdate),
    categories: r.categories,
    titleTerms: split(r.title_terms),
    terms: split(r.terms),
  }));
}

/** The collection's next document number (its index state is created on first use). */
export async function nextDocno(tx: pg.PoolClient, collectionId: string): Promise<number> {
  await tx.query(
    `INSERT INTO search_index_state (collection_id) VALUES ($1) ON CONFLICT DO NOTHING`,
    [collectionId],
  );
  const { rows } = await tx.query<{ next_docno: number }>(
    `SELECT next_docno FROM search_index_state WHERE collection_id = $1`,
    [collectionId],
  );
  return rows[0]!.next_docno;
}

export interface NewSegment {
  collectionId: string;
  firstDocno: number;
  docCount: number;
  /** documents.id and regdate of each number, as float64 LE bytes */
  docIds: Buffer;
  regdates: Buffer;
  /** the posting lists packed in the row (small segments), or null (insertPostings writes them) */
  packed: Buffer | null;
}

/** Inserts a segment row; returns its id. */
export async function insertSegment(tx: pg.PoolClient, s: NewSegment): Promise<string> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO search_segments (collection_id, first_docno, doc_count, doc_ids, regdates, packed)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id::text`,
    [s.collectionId, s.firstDocno, s.docCount, s.docIds, s.regdates, s.packed],
  );
  return rows[0]!.id;
}

/** Writes posting lists of a segment, in statements of at most 2,000 rows. */
export async function insertPostings(
  tx: pg.PoolClient,
  segmentId: string,
  lists: PostingList[],
): Promise<void> {
  for (let i = 0; i < lists.length; i += 2000) {
    const part = lists.slice(i, i + 2000);
    await tx.query(
      `INSERT INTO search_postings (segment_id, kind, term, data)
       SELECT $1, k, t, d FROM unnest($2::"char"[], $3::text[], $4::bytea[]) AS u(k, t, d)`,
      [segmentId, part.map((l) => l.kind), part.map((l) => l.term), part.map((l) => l.data)],
    );
  }
}

/** Records the folded documents' numbers, takes them out of pending, advances the state. */
export async function finishFold(
  tx: pg.PoolClient,
  collectionId: string,
  docIds: string[],
  firstDocno: number,
): Promise<void> {
  const docnos = docIds.map((_, i) => firstDocno + i);
  await tx.query(
    `INSERT INTO search_docnos (doc_id, collection_id, docno)
     SELECT d, $2, n FROM unnest($1::bigint[], $3::int[]) AS u(d, n)
     ON CONFLICT (doc_id) DO UPDATE SET collection_id = EXCLUDED.collection_id, docno = EXCLUDED.docno`,
    [docIds, collectionId, docnos],
  );
  await tx.query(
    `DELETE FROM search_pending WHERE collection_id = $2 AND doc_id = ANY($1::bigint[])`,
    [docIds, collectionId],
  );
  await tx.query(`UPDATE search_index_state SET next_docno = $2 WHERE collection_id = $1`, [
    collectionId,
    firstDocno + docIds.length,
  ]);
}

/** Deleted-number bitmaps are kept per chunk of this many numbers. */
export const DELETED_CHUNK = 65_536;

/** Moves the collection's tombstones into its deleted bitmaps; returns how many. */
export async function applyTombstones(tx: pg.PoolClient, collectionId: string): Promise<number> {
  const { rows } = await tx.query<{ docno: number }>(
    `DELETE FROM search_tombstones WHERE collection_id = $1 RETURNING docno`,
    [collectionId],
  );
  if (rows.length === 0) return 0;
  const byChunk = new Map<number, number[]>();
  for (const { docno } of rows) {
    const chunk = Math.floor(docno / DELETED_CHUNK);
    byChunk.set(chunk, [...(byChunk.get(chunk) ?? []), docno % DELETED_CHUNK]);
  }
  const chunks = [...byChunk.keys()];
  const { rows: current } = await tx.query<{ chunk: number; bits: Buffer }>(
    `SELECT chunk, bits FROM search_deleted WHERE collection_id = $1 AND chunk = ANY($2::int[])
     FOR UPDATE`,
    [collectionId, chunks],
  );
  const existing = new Map(current.map((r) => [r.chunk, r.bits]));
  const updated = chunks.map((chunk) => {
    const bits = Buffer.alloc(DELETED_CHUNK / 8);
    existing.get(chunk)?.copy(bits);
    for (const offset of byChunk.get(chunk)!) bits[offset >>> 3]! |= 1 << (offset & 7);
    return bits;
  });
  await tx.query(
    `INSERT INTO search_deleted (collection_id, chunk, bits)
     SELECT $1, c, b FROM unnest($2::int[], $3::bytea[]) AS u(c, b)
     ON CONFLICT (collection_id, chunk)
     DO UPDATE SET bits = EXCLUDED.bits, version = search_deleted.version + 1`,
    [collectionId, chunks, updated],
  );
  return rows.length;
}

/** Tests a document number against deleted-chunk bitmaps (bit order as applyTombstones writes). */
export function deletedTest(chunks: Map<number, Buffer>): (docno: number) => boolean {
  return (docno) => {
    const bits = chunks.get(Math.floor(docno / DELETED_CHUNK));
    if (!bits) return false;
    const offset = docno % DELETED_CHUNK;
    return (bits[offset >>> 3]! & (1 << (offset & 7))) !== 0;
  };
}

// ------------------------------------------------------------------------------ merges

export interface LiveSegment extends MergePart {
  id: string;
}

export async function liveSegments(
  tx: pg.PoolClient,
  collectionId: string,
): Promise<LiveSegment[]> {
  const { rows } = await tx.query<{ id: string; first_docno: number; doc_count: number }>(
    `SELECT id::text, first_docno, doc_count FROM search_segments
     WHERE collection_id = $1 AND retired_at IS NULL ORDER BY first_docno`,
    [collectionId],
  );
  return rows.map((r) => ({ id: r.id, firstDocno: r.first_docno, docCount: r.doc_count }));
}

export async function deletedChunks(
  tx: pg.PoolClient,
  collectionId: string,
): Promise<Map<number, Buffer>> {
  const { rows } = await tx.query<{ chunk: number; bits: Buffer }>(
    `SELECT chunk, bits FROM search_deleted WHERE collection_id = $1`,
    [collectionId],
  );
  return new Map(rows.map((r) => [r.chunk, r.bits]));
}

/** Every posting list of these segments, as key (kind + term) → data per segment. */
export async function readAllPostings(
  tx: pg.PoolClient,
  segmentIds: string[],
): Promise<Map<string, Array<Buffer | null>>> {
  const out = new Map<string, Array<Buffer | null>>();
  const put = (i: number, key: string, data: Buffer) => {
    let lists = out.get(key);
    if (!lists) {
      lists = new Array<Buffer | null>(segmentIds.length).fill(null);
      out.set(key, lists);
    }
    lists[i] = data;
  };
  const packed = await readPacked(tx, segmentIds);
  const packedById = new Map(packed.map((r) => [r.id, r.packed]));
  for (const [i, segmentId] of segmentIds.entries()) {
    const blob = packedById.get(segmentId);
    if (blob) {
      for (const [key, data] of unpackPostings(blob)) put(i, key, data);
      continue;
    }
    let after: [string, string] = ['', ''];
    for (;;) {
      const { rows } = await tx.query<{ kind: PostingKind; term: string; data: Buffer }>(
        `SELECT kind, term, data FROM search_postings
         WHERE segment_id = $1 AND (kind, term) > ($2::"char", $3::text COLLATE "C")
         ORDER BY kind, term LIMIT 5000`,
        [segmentId, after[0], after[1]],
      );
      for (const r of rows) put(i, r.kind + r.term, r.data);
      if (rows.length < 5000) break;
      const last = rows[rows.length - 1]!;
      after = [last.kind, last.term];
    }
  }
  return out;
}

/** documents.id and regdate bytes of adjacent segments, concatenated in number order. */
export async function concatenatedDocs(
  tx: pg.PoolClient,
  segmentIds: string[],
): Promise<{ docIds: Buffer; regdates: Buffer }> {
  const { rows } = await tx.query<{ doc_ids: Buffer; regdates: Buffer }>(
    `SELECT doc_ids, regdates FROM search_segments WHERE id = ANY($1::bigint[]) ORDER BY first_docno`,
    [segmentIds],
  );
  return {
    docIds: Buffer.concat(rows.map((r) => r.doc_ids)),
    regdates: Buffer.concat(rows.map((r) => r.regdates)),
  };
}

/** Retired segments stay readable this long for searches that listed them before the merge. */
export const RETIRED_GRACE_SECONDS = 30;

export async function retireSegments(tx: pg.PoolClient, segmentIds: string[]): Promise<void> {
  await tx.query(`UPDATE search_segments SET retired_at = now() WHERE id = ANY($1::bigint[])`, [
    segmentIds,
  ]);
}

/** Collections with retired segments past their grace period. */
export async function collectionsWithRetired(db: pg.Pool): Promise<string[]> {
  const { rows } = await db.query<{ collection_id: string }>(
    `SELECT DISTINCT collection_id FROM search_segments
     WHERE retired_at < now() - make_interval(secs => $1)`,
    [RETIRED_GRACE_SECONDS],
  );
  return rows.map((r) => r.collection_id);
}

/** Deletes the collection's retired segments past their grace period, with their postings. */
export async function deleteRetired(tx: pg.PoolClient, collectionId: string): Promise<number> {
  const { rows } = await tx.query<{ id: string }>(
    `SELECT id::text FROM search_segments
     WHERE collection_id = $1 AND retired_at < now() - make_interval(secs => $2)`,
    [collectionId, RETIRED_GRACE_SECONDS],
  );
  if (!rows.length) return 0;
  const ids = rows.map((r) => r.id);
  await tx.query(`DELETE FROM search_postings WHERE segment_id = ANY($1::bigint[])`, [ids]);
  await tx.query(`DELETE FROM search_segments WHERE id = ANY($1::bigint[])`, [ids]);
  return ids.length;
}
