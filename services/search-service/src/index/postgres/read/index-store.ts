import type { Queryable } from '@hub/service-kit';
import { float64s, type PostingKind } from '../layout';

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
  /** null: nothing of the collection was ever folded */
  epoch: string | null;
  nextDocno: number;
  segments: SegmentRef[];
  /** [chunk, version] of the collection's deleted bitmaps */
  deleted: Array<[number, number]>;
  tombstones: number[];
  /**
   * pending rows that may match (see SnapshotFilter): [documents.id, regdate as text, its
   * terms among the wanted, categories, its title terms among the wanted]
   */
  tail: Array<[number, string, string[], number[], string[]]>;
  /** per lookup term, the number of pending rows of the collection that have it (absent: 0) */
  pendingDf: Map<string, number>;
}

/**
 * Which pending rows a search reads: those with every `required` term and some `wanted` term
 * (query-plan.ts tailFilter), and the ca / ex_ca / date filters; `lookups`: the terms whose
 * pending document count is wanted.
 */
export interface SnapshotFilter {
  required: string[];
  wanted: string[];
  lookups: string[];
  ca: number[] | null;
  exCa: number[] | null;
  from: string | null;
  to: string | null;
  /**
   * prefix=1: a pending match also needs a term in [prefix, upper) (prefix-expansion.ts); its
   * terms (and its title terms, when its title has one) then include `mark`, the plan's term
   * for the prefix (query-plan.ts prefixMark)
   */
  prefix?: { prefix: string; upper: string; mark: string } | null;
}

/** A snapshot function's row, its tail rows of type T. */
interface SnapshotRow<T> {
  epoch: string | null;
  next_docno: number | null;
  segments: Array<[number | string, number, number, boolean]> | null;
  deleted: Array<[number, number]> | null;
  tombstones: number[] | null;
  tail: T[] | null;
}

function snapshotOf<T>(
  r: SnapshotRow<T>,
  tailRows: (tail: T[]) => Snapshot['tail'],
  pendingDf = new Map<string, number>(),
): Snapshot {
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
    tail: tailRows(r.tail ?? []),
    pendingDf,
  };
}

export async function readSnapshot(
  db: Queryable,
  collectionId: string,
  f: SnapshotFilter,
): Promise<Snapshot> {
  if (typedOnly(f)) return readTypedSnapshot(db, collectionId, f);
  const { rows } = await db.query({
    name: 'bitmap-snapshot-plan',
    text: `SELECT * FROM search_snapshot_plan($1, $2::text[], $3::int[], $4::int[], $5, $6,
             $7::text[], $8::text[], $9, $10, $11)`,
    values: [
      ...filterValues(collectionId, f),
      f.wanted,
      f.lookups,
      ...prefixValues(f),
      f.prefix?.mark ?? null,
    ],
  });
  const r = rows[0] as SnapshotRow<Snapshot['tail'][number]> & {
    pending_df: Record<string, number> | null;
  };
  return snapshotOf(r, (tail) => tail, new Map(Object.entries(r.pending_df ?? {})));
}

/** The first six arguments of both snapshot functions: the collection, terms and filters. */
const filterValues = (collectionId: string, f: SnapshotFilter) =>
  [collectionId, f.required, f.ca, f.exCa, f.from, f.to] as const;

/** The prefix's range arguments of both (null, null without prefix=1). */
const prefixValues = (f: SnapshotFilter) => [f.prefix?.prefix ?? null, f.prefix?.upper ?? null];

/**
 * Whether the plan can only match as typed (no term whose count could derive a form, every
 * wanted term required, or the prefix's mark): most queries. Their snapshot is then
 * search_snapshot's, which reads no term of the pending rows back.
 */
function typedOnly(f: SnapshotFilter): boolean {
  const required = new Set(f.required);
  return f.lookups.length === 0 && f.wanted.every((t) => required.has(t) || t === f.prefix?.mark);
}

/**
 * search_snapshot, its tail rows in the plan's shape: every row it returns has all the wanted
 * terms (and the prefix), so its terms are the wanted ones, and its title terms too when its
 * title has them all (search_snapshot's flag), else none (the plan's title tier needs all).
 */
async function readTypedSnapshot(
  db: Queryable,
  collectionId: string,
  f: SnapshotFilter,
): Promise<Snapshot> {
  const { rows } = await db.query({
    name: 'bitmap-snapshot',
    text: 'SELECT * FROM search_snapshot($1, $2::text[], $3::int[], $4::int[], $5, $6, $7, $8)',
    values: [...filterValues(collectionId, f), ...prefixValues(f)],
  });
  const r = rows[0] as SnapshotRow<[number, string, boolean, number[]]>;
  const wanted = f.wanted;
  return snapshotOf(r, (tail) =>
    tail.map(([docId, regdate, inTitle, categories]) => [
      docId,
      regdate,
      wanted,
      categories,
      inTitle ? wanted : [],
    ]),
  );
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
