import type pg from 'pg';
import { asBase64, base64Of, bytesOf, fromBase64 } from '../base64-bytes';
import {
  collectionLock,
  deletedChunkBits,
  deletedChunkOf,
  setDeleted,
  splitTerms,
  TERM_SEPARATOR_SQL,
  type PostingList,
} from '../layout';
import type { FoldInput } from './segment-builder';

/**
 * The folder's SQL for folds (merges: merge-store.ts): each function runs inside the caller's
 * transaction (see folder.ts), which first takes the collection's fold or merge lock. Nothing
 * here commits.
 */

/** Takes the collection's fold (or merge) lock for this transaction; false when another has it. */
export async function tryLock(
  tx: pg.PoolClient,
  which: 'fold' | 'merge',
  collectionId: string,
): Promise<boolean> {
  const { rows } = await tx.query<{ ok: boolean }>(
    `SELECT pg_try_advisory_xact_lock(${collectionLock(which, '$1')}) AS ok`,
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
            array_to_string(title_terms, ${TERM_SEPARATOR_SQL}) AS title_terms,
            array_to_string(terms, ${TERM_SEPARATOR_SQL}) AS terms
     FROM search_pending WHERE collection_id = $1
     ORDER BY doc_id LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [collectionId, limit],
  );
  return rows.map((r) => ({
    docId: r.doc_id,
    regdate: Number(r.regdate),
    categories: r.categories,
    titleTerms: splitTerms(r.title_terms),
    terms: splitTerms(r.terms),
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
  /** documents.id and regdate of each number (float64Bytes, layout.ts) */
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
       SELECT $1, k, t, ${fromBase64('d')} FROM unnest($2::"char"[], $3::text[], $4::text[]) AS u(k, t, d)`,
      [
        segmentId,
        part.map((l) => l.kind),
        part.map((l) => l.term),
        part.map((l) => base64Of(l.data)),
      ],
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

/** Moves the collection's tombstones into its deleted bitmaps; returns how many. */
export async function applyTombstones(tx: pg.PoolClient, collectionId: string): Promise<number> {
  const { rows } = await tx.query<{ docno: number }>(
    `DELETE FROM search_tombstones WHERE collection_id = $1 RETURNING docno`,
    [collectionId],
  );
  if (rows.length === 0) return 0;
  const byChunk = new Map<number, number[]>();
  for (const { docno } of rows) {
    const chunk = deletedChunkOf(docno);
    byChunk.set(chunk, [...(byChunk.get(chunk) ?? []), docno]);
  }
  const chunks = [...byChunk.keys()];
  const { rows: current } = await tx.query<{ chunk: number; bits: string }>(
    `SELECT chunk, ${asBase64('bits')} FROM search_deleted
     WHERE collection_id = $1 AND chunk = ANY($2::int[])
     FOR UPDATE`,
    [collectionId, chunks],
  );
  const existing = new Map(current.map((r) => [r.chunk, bytesOf(r.bits)]));
  const updated = chunks.map((chunk) => {
    const bits = deletedChunkBits(existing.get(chunk));
    for (const docno of byChunk.get(chunk)!) setDeleted(bits, docno);
    return bits;
  });
  await tx.query(
    `INSERT INTO search_deleted (collection_id, chunk, bits)
     SELECT $1, c, ${fromBase64('b')} FROM unnest($2::int[], $3::text[]) AS u(c, b)
     ON CONFLICT (collection_id, chunk)
     DO UPDATE SET bits = EXCLUDED.bits, version = search_deleted.version + 1`,
    [collectionId, chunks, updated.map(base64Of)],
  );
  return rows.length;
}

/** Documents waiting to be folded, and the seconds the oldest of them has waited (0: none). */
export async function foldLag(db: pg.Pool): Promise<{ documents: number; seconds: number }> {
  const { rows } = await db.query<{ documents: string; seconds: number | null }>(
    `SELECT count(*)::text AS documents,
            extract(epoch FROM now() - min(queued_at))::float8 AS seconds
     FROM search_pending`,
  );
  return { documents: Number(rows[0]!.documents), seconds: Math.max(0, rows[0]!.seconds ?? 0) };
}
