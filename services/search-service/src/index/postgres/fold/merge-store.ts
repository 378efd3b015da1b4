import type pg from 'pg';
import { asBase64, bytesOf } from '../base64-bytes';
import { deletedChunkOf, isDeleted, postingKey, type PostingKind } from '../layout';
import { readPacked } from '../read/index-store';
import { unpackPostings } from '../format/packed-segment';
import type { MergePart } from './segment-builder';

/**
 * The merger's SQL (see folder.ts): reading the live segments of a collection and all their
 * posting lists, retiring merged segments, and deleting retired ones after a grace period.
 * The functions given a transaction run inside the caller's, which holds the collection's merge
 * lock.
 */

/** Tests a document number against the collection's deleted-chunk bitmaps (by chunk). */
export function deletedTest(chunks: Map<number, Buffer>): (docno: number) => boolean {
  return (docno) => {
    const bits = chunks.get(deletedChunkOf(docno));
    return bits !== undefined && isDeleted(bits, docno);
  };
}

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
  const { rows } = await tx.query<{ chunk: number; bits: string }>(
    `SELECT chunk, ${asBase64('bits')} FROM search_deleted WHERE collection_id = $1`,
    [collectionId],
  );
  return new Map(rows.map((r) => [r.chunk, bytesOf(r.bits)]));
}

/** Every posting list of these segments, as postingKey → data per segment. */
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
      for (const r of rows) put(i, postingKey(r.kind, r.term), r.data);
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
  const { rows } = await tx.query<{ doc_ids: string; regdates: string }>(
    `SELECT ${asBase64('doc_ids')}, ${asBase64('regdates')} FROM search_segments
     WHERE id = ANY($1::bigint[]) ORDER BY first_docno`,
    [segmentIds],
  );
  return {
    docIds: Buffer.concat(rows.map((r) => bytesOf(r.doc_ids))),
    regdates: Buffer.concat(rows.map((r) => bytesOf(r.regdates))),
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
