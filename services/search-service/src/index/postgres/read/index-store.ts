import type { Queryable } from '@hub/service-kit';
import { float64s, type PostingKind } from '../layout';
import { asBase64, bytesOf, pairedWithBase64Apart } from '../base64-bytes';
import {
  pageDocument,
  type PageDocumentJson,
  type StoredDocumentWithThumbnail,
} from '../../../store/result-documents';

/**
 * The bitmap index's SQL for searches (changes: change-store.ts; folds and merges:
 * fold-store.ts and merge-store.ts). Tables: migrations/1732500000000_bitmap-index.sql.
 */

export interface SegmentRef {
  id: string;
  firstDocno: number;
  docCount: number;
  /** its posting lists are packed in the segment row (see packed-segment.ts) */
  packed: boolean;
}

export interface Snapshot {
  collectionId: string;
  /** null: nothing of the collection was ever folded */
  epoch: string | null;
  nextDocno: number;
  segments: SegmentRef[];
  /** [chunk, version] of the collection's deleted bitmaps */
  deleted: Array<[number, number]>;
  tombstones: number[];
  /**
   * the pending rows that may match (pending-tail.ts): [documents.id, regdate as text, its
   * terms among the wanted, categories, its title terms among the wanted]
   */
  tail: Array<[number, string, string[], number[], string[]]>;
  /** per lookup term, the number of pending rows of the collection that have it (absent: 0) */
  pendingDf: Map<string, number>;
  /** the documents the search asked for with its snapshot (remembered-pages.ts), by id */
  documents?: ReadonlyMap<string, StoredDocumentWithThumbnail>;
}

/** What a collection's view needs of its folded state (readFoldedState). */
export type FoldedState = Pick<Snapshot, 'epoch' | 'nextDocno' | 'segments'>;

/**
 * The collection's epoch, next number and live segments, in one statement (so the segments
 * cover the numbers below next_docno): what its view is extended with, without the pending
 * rows that a search's snapshot reads too.
 */
export async function readFoldedState(db: Queryable, collectionId: string): Promise<FoldedState> {
  const { rows } = await db.query<Pick<SnapshotRowsRow, 'epoch' | 'next_docno' | 'segments'>>({
    name: 'bitmap-folded-state',
    text: `SELECT s.epoch, s.next_docno,
                  (SELECT json_agg(json_build_array(g.id, g.first_docno, g.doc_count, g.packed IS NOT NULL)
                                   ORDER BY g.first_docno)
                     FROM search_segments g
                    WHERE g.collection_id = s.collection_id AND g.retired_at IS NULL) AS segments
             FROM search_index_state s WHERE s.collection_id = $1`,
    values: [collectionId],
  });
  const r = rows[0];
  return {
    epoch: r?.epoch ?? null,
    nextDocno: r?.next_docno ?? 0,
    segments: segmentRefs(r?.segments ?? null),
  };
}

/** search_snapshot_read's row. */
interface SnapshotRowsRow {
  epoch: string | null;
  next_docno: number | null;
  segments: Array<[number | string, number, number, boolean]> | null;
  deleted: Array<[number, number]> | null;
  tombstones: number[] | null;
  /** the pending row ids the caller said it holds that are still pending (bigints as text) */
  held: string[] | null;
  /** the other pending rows: [row_id, doc_id, regdate as text, categories, terms, title terms] */
  fresh: Array<[number, number, string, number[], string[], string[]]> | null;
  /** the asked documents that the collection has, but their docs */
  docs: PageDocumentJson[] | null;
  /** their docs' base64, in the same order, joined by commas (pairedWithBase64Apart) */
  doc_data: string | null;
  /** each asked list: [segment id, kind, term] */
  lists: Array<[string, PostingKind, string]> | null;
  /** their base64 in the same order, joined by commas; empty where the segment has none */
  list_data: string | null;
}

/** The live segments as the snapshot statements aggregate them (json of arrays). */
function segmentRefs(rows: SnapshotRowsRow['segments']): SegmentRef[] {
  return (rows ?? []).map(([id, firstDocno, docCount, packed]) => ({
    id: String(id),
    firstDocno,
    docCount,
    packed,
  }));
}

/** A pending row as search_snapshot_read returns it whole. */
export interface PendingRowRead {
  rowId: number;
  docId: number;
  regdate: string;
  categories: number[];
  terms: string[];
  titleTerms: string[];
}

/** A snapshot but its tail, and the collection's pending rows. */
export interface SnapshotRows {
  snapshot: Omit<Snapshot, 'tail' | 'pendingDf' | 'documents'>;
  /** the rows of `known` still pending */
  held: number[];
  /** every other pending row, whole */
  fresh: PendingRowRead[];
  /** the asked documents (`docs`) that the collection has, as stored, by documents.id */
  documents: Map<string, StoredDocumentWithThumbnail>;
  /** each asked list (`lists`): its data, or null where its segment has none */
  lists: Array<ListTriple & { data: Buffer | null }>;
}

/** A posting list asked for by segment, kind and term. */
export interface ListTriple {
  segmentId: string;
  kind: PostingKind;
  term: string;
}

/**
 * The first read of a search, one statement: the collection's state, segments, deleted
 * versions, tombstones and every pending row: whole, or only its id when it is in `known` (the
 * pending row ids the caller holds: search_pending.row_id never changes its row). Which pending
 * rows match is the caller's (pending-tail.ts). And the documents of `docs` (documents.id) as
 * stored with their thumbnails, as of the same snapshot: the page the caller expects to find
 * (remembered-pages.ts), so that it need not read them after; and the posting `lists` it
 * expects to read cold, so that it need not read them after either.
 */
export async function readSnapshotRows(
  db: Queryable,
  collectionId: string,
  known: readonly number[],
  docs: readonly string[] = [],
  lists: readonly ListTriple[] = [],
): Promise<SnapshotRows> {
  const { rows } = await db.query<SnapshotRowsRow>({
    name: 'bitmap-snapshot-read',
    text: `SELECT * FROM search_snapshot_read($1, $2::bigint[], $3::bigint[],
                                              $4::bigint[], $5::"char"[], $6::text[])`,
    values: [
      collectionId,
      known,
      docs,
      lists.map((l) => l.segmentId),
      lists.map((l) => l.kind),
      lists.map((l) => l.term),
    ],
  });
  const r = rows[0]!;
  return {
    snapshot: {
      collectionId,
      epoch: r.epoch,
      nextDocno: r.next_docno ?? 0,
      segments: segmentRefs(r.segments),
      deleted: r.deleted ?? [],
      tombstones: r.tombstones ?? [],
    },
    held: (r.held ?? []).map(Number),
    fresh: (r.fresh ?? []).map(([rowId, docId, regdate, categories, terms, titleTerms]) => ({
      rowId,
      docId,
      regdate,
      categories,
      terms,
      titleTerms,
    })),
    documents: new Map(
      pairedWithBase64Apart(r.docs, r.doc_data).map(([row, doc]) => [
        row[0],
        pageDocument(row, doc),
      ]),
    ),
    lists: pairedWithBase64Apart(r.lists, r.list_data).map(([[segmentId, kind, term], data]) => ({
      segmentId,
      kind,
      term,
      data: data === '' ? null : bytesOf(data),
    })),
  };
}

export interface PostingRow {
  segmentId: string;
  kind: PostingKind;
  term: string;
  data: Buffer;
}

/**
 * The posting lists of these (kind, term) keys in these segments: rows only where a segment
 * has the term (a key no segment has costs one index probe per segment and no row), and the
 * ids of the segments that still exist.
 */
export async function readPostings(
  db: Queryable,
  segmentIds: string[],
  keys: Array<{ kind: PostingKind; term: string }>,
): Promise<{ segmentIds: string[]; rows: PostingRow[] }> {
  const { rows } = await db.query<SegmentListRow>({
    name: 'bitmap-postings-found',
    text: `SELECT s.id::text AS segment_id, p.kind, p.term, p.data
           FROM search_segments s
           LEFT JOIN LATERAL (
             SELECT p.kind, p.term, p.data
             FROM unnest($2::"char"[], $3::text[]) AS k(kind, term)
             JOIN search_postings p
               ON p.segment_id = s.id AND p.kind = k.kind AND p.term = k.term COLLATE "C"
           ) p ON true
           WHERE s.id = ANY($1::bigint[])`,
    values: [segmentIds, keys.map((k) => k.kind), keys.map((k) => k.term)],
  });
  return foundLists(rows);
}

/** A segment LEFT JOIN its lists: the segments that exist, and the lists found. */
interface SegmentListRow {
  segment_id: string;
  kind: PostingKind | null;
  term: string | null;
  data: Buffer | null;
}

function foundLists(rows: SegmentListRow[]): { segmentIds: string[]; rows: PostingRow[] } {
  const found = new Set<string>();
  const out: PostingRow[] = [];
  for (const r of rows) {
    found.add(r.segment_id);
    if (r.data) out.push({ segmentId: r.segment_id, kind: r.kind!, term: r.term!, data: r.data });
  }
  return { segmentIds: [...found], rows: out };
}

/**
 * The category terms each of these segments has a posting list for (by segment id; a segment
 * that no longer exists is absent): what a search of many categories asks for instead of one
 * probe per listed category.
 */
export async function readCategoryTerms(
  db: Queryable,
  segmentIds: string[],
): Promise<Map<string, Set<string>>> {
  const { rows } = await db.query<{ id: string; terms: string[] }>({
    name: 'bitmap-category-terms',
    text: `SELECT s.id::text AS id,
                  coalesce(array_agg(p.term) FILTER (WHERE p.term IS NOT NULL), '{}') AS terms
           FROM search_segments s
           LEFT JOIN search_postings p ON p.segment_id = s.id AND p.kind = 'c'
           WHERE s.id = ANY($1::bigint[])
           GROUP BY s.id`,
    values: [segmentIds],
  });
  return new Map(rows.map((r) => [r.id, new Set(r.terms)]));
}

/**
 * Every category posting list of these segments (facet counts), and the ids of the segments
 * that still exist.
 */
export async function readCategoryLists(
  db: Queryable,
  segmentIds: string[],
): Promise<{ segmentIds: string[]; rows: PostingRow[] }> {
  const { rows } = await db.query<SegmentListRow>({
    name: 'bitmap-category-lists',
    text: `SELECT s.id::text AS segment_id, p.kind, p.term, p.data
           FROM search_segments s
           LEFT JOIN search_postings p ON p.segment_id = s.id AND p.kind = 'c'
           WHERE s.id = ANY($1::bigint[])`,
    values: [segmentIds],
  });
  return foundLists(rows);
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
  const { rows } = await db.query<{ id: string; packed: string }>({
    name: 'bitmap-packed',
    text: `SELECT id::text, ${asBase64('packed')} FROM search_segments
           WHERE id = ANY($1::bigint[]) AND packed IS NOT NULL`,
    values: [segmentIds],
  });
  return rows.map((r) => ({ id: r.id, packed: bytesOf(r.packed) }));
}

/** documents.id and regdate of every number of these segments */
export async function readSegmentDocs(db: Queryable, segmentIds: string[]): Promise<SegmentDocs[]> {
  const { rows } = await db.query<{
    id: string;
    first_docno: number;
    doc_ids: string;
    regdates: string;
  }>({
    name: 'bitmap-segment-docs',
    text: `SELECT id::text, first_docno, ${asBase64('doc_ids')}, ${asBase64('regdates')} FROM search_segments
           WHERE id = ANY($1::bigint[]) ORDER BY first_docno`,
    values: [segmentIds],
  });
  return rows.map((r) => ({
    id: r.id,
    firstDocno: r.first_docno,
    docIds: float64s(bytesOf(r.doc_ids)),
    regdates: float64s(bytesOf(r.regdates)),
  }));
}

/** The collection's deleted bitmaps of these chunks, with their versions. */
export async function readDeleted(
  db: Queryable,
  collectionId: string,
  chunks: number[],
): Promise<Array<{ chunk: number; version: number; bits: Buffer }>> {
  const { rows } = await db.query<{ chunk: number; version: number; bits: string }>({
    name: 'bitmap-deleted',
    text: `SELECT chunk, version, ${asBase64('bits')} FROM search_deleted
           WHERE collection_id = $1 AND chunk = ANY($2::int[])`,
    values: [collectionId, chunks],
  });
  return rows.map((r) => ({ chunk: r.chunk, version: r.version, bits: bytesOf(r.bits) }));
}

/**
 * The word lists ('w'), and with `titles` the title lists ('t') too, whose term is in
 * [prefix, upper) (every term that starts with a prefix: prefix-expansion.ts) in these row
 * segments, and the ids of the segments that still exist: one range of search_postings'
 * primary key per segment and kind (segment_id and kind equal, term between the bounds: term
 * is COLLATE "C", so code point order), never a scan of a segment's terms. The kinds are
 * literals, one branch each: a kind from a list (= ANY, a join) left the planner free to
 * bound the scan by the segment alone and filter the kind.
 */
export async function readPrefixPostings(
  db: Queryable,
  segmentIds: string[],
  titles: boolean,
  prefix: string,
  upper: string,
): Promise<{ segmentIds: string[]; rows: PostingRow[] }> {
  const { rows } = await db.query<SegmentListRow>({
    name: 'bitmap-prefix-postings',
    text: `SELECT s.id::text AS segment_id, p.kind, p.term, p.data
           FROM search_segments s
           LEFT JOIN LATERAL (
             SELECT p.kind, p.term, p.data FROM search_postings p
             WHERE p.segment_id = s.id AND p.kind = 'w' AND p.term >= $2 AND p.term < $3
             UNION ALL
             SELECT p.kind, p.term, p.data FROM search_postings p
             WHERE $4 AND p.segment_id = s.id AND p.kind = 't' AND p.term >= $2 AND p.term < $3
           ) p ON true
           WHERE s.id = ANY($1::bigint[])`,
    values: [segmentIds, prefix, upper, titles],
  });
  return foundLists(rows);
}
