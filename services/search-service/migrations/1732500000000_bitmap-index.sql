-- Up Migration
-- The bitmap index of the Postgres engine (src/index/postgres; the design is in
-- docs/postgres-engine.md).
-- Every table is keyed by collection first, so one collection's size never enters another's
-- searches. A document is written to search_pending in its own transaction (searchable at
-- once: searches match the pending tail directly); the folder moves pending documents into
-- immutable segments of per-term posting lists in batches, and merges segments in the
-- background.

-- Per collection: the epoch (new whenever the collection's index is created again) and the
-- next dense document number.
CREATE TABLE search_index_state (
  collection_id text PRIMARY KEY,
  epoch bigint GENERATED ALWAYS AS IDENTITY,
  next_docno integer NOT NULL DEFAULT 0
);

-- Committed documents not yet folded into a segment. Rows stay inline up to ~8 KB (no TOAST
-- lookups when a search scans the tail).
CREATE TABLE search_pending (
  collection_id text NOT NULL,
  doc_id bigint NOT NULL,
  regdate bigint NOT NULL,
  categories integer[] NOT NULL,
  title_terms text[] COLLATE "C" NOT NULL,
  terms text[] COLLATE "C" NOT NULL,
  PRIMARY KEY (collection_id, doc_id)
) WITH (toast_tuple_target = 8160);
ALTER TABLE search_pending
  ALTER COLUMN title_terms SET STORAGE MAIN,
  ALTER COLUMN terms SET STORAGE MAIN;

-- The document number of every folded document (to mark it deleted when it changes or goes).
-- No index on collection_id (one less index write per document): deleting a collection finds
-- its rows through its documents.
CREATE TABLE search_docnos (
  doc_id bigint PRIMARY KEY,
  collection_id text NOT NULL,
  docno integer NOT NULL
);

-- Folded documents deleted or replaced since the last fold; the folder moves them into
-- search_deleted.
CREATE TABLE search_tombstones (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  collection_id text NOT NULL,
  docno integer NOT NULL
);
CREATE INDEX search_tombstones_collection ON search_tombstones (collection_id);

-- Deleted document numbers, a bitmap per chunk of 65,536 numbers; version grows on change.
CREATE TABLE search_deleted (
  collection_id text NOT NULL,
  chunk integer NOT NULL,
  version integer NOT NULL DEFAULT 1,
  bits bytea NOT NULL,
  PRIMARY KEY (collection_id, chunk)
);
ALTER TABLE search_deleted ALTER COLUMN bits SET STORAGE EXTERNAL;

-- Immutable segments: document numbers first_docno .. first_docno + doc_count - 1, with each
-- number's documents.id and score_regdate (float64 little-endian arrays). A merge replaces
-- adjacent segments by one and retires them (retired_at); they are deleted a while later, so
-- a search that read the segment list just before the merge still finds their postings.
CREATE TABLE search_segments (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  collection_id text NOT NULL,
  first_docno integer NOT NULL,
  doc_count integer NOT NULL,
  doc_ids bytea NOT NULL,
  regdates bytea NOT NULL,
  -- a small segment's posting lists, all in one value (src/index/postgres/format/packed-segment.ts);
  -- null: one search_postings row per term
  packed bytea,
  created_at timestamptz NOT NULL DEFAULT now(),
  retired_at timestamptz
);
ALTER TABLE search_segments
  ALTER COLUMN doc_ids SET STORAGE EXTERNAL,
  ALTER COLUMN regdates SET STORAGE EXTERNAL,
  ALTER COLUMN packed SET STORAGE EXTERNAL;
CREATE INDEX search_segments_live ON search_segments (collection_id, first_docno)
  WHERE retired_at IS NULL;
CREATE INDEX search_segments_retired ON search_segments (retired_at) WHERE retired_at IS NOT NULL;

-- One posting list per segment and term (segments that are not packed): kind 'w' a word of any icontents field, 't' a word of
-- the title (the title tier), 'c' a category. data: see src/index/postgres/format/postings-codec.ts.
CREATE TABLE search_postings (
  segment_id bigint NOT NULL,
  kind "char" NOT NULL,
  term text COLLATE "C" NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (segment_id, kind, term)
);
ALTER TABLE search_postings ALTER COLUMN data SET STORAGE EXTERNAL;

-- What one search needs besides posting lists, in one statement (so one snapshot): the
-- collection's state, its live segments, the versions of its deleted chunks, the tombstones
-- not yet folded, and the pending documents that match (doc_id, regdate as text, every term in
-- the title). PL/pgSQL keeps the plan per connection. Only plain index scans: the pending and
-- tombstone tables churn (every row is deleted by the next fold); a sequential or bitmap scan
-- would visit every dead row left since the last VACUUM on every search, while a plain index
-- scan marks dead index entries once and skips them afterwards.
CREATE FUNCTION search_snapshot(
  p_collection text,
  p_terms text[],
  p_ca integer[],
  p_ex_ca integer[],
  p_from bigint,
  p_to bigint
)
RETURNS TABLE (epoch bigint, next_docno integer, segments json, deleted json, tombstones integer[], tail json)
LANGUAGE plpgsql STABLE
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $fn$
BEGIN
  RETURN QUERY
  SELECT s.epoch, s.next_docno,
    (SELECT json_agg(json_build_array(g.id, g.first_docno, g.doc_count, g.packed IS NOT NULL) ORDER BY g.first_docno)
       FROM search_segments g WHERE g.collection_id = p_collection AND g.retired_at IS NULL) AS segments,
    (SELECT json_agg(json_build_array(d.chunk, d.version))
       FROM search_deleted d WHERE d.collection_id = p_collection) AS deleted,
    (SELECT array_agg(t.docno) FROM search_tombstones t WHERE t.collection_id = p_collection) AS tombstones,
    (SELECT json_agg(json_build_array(p.doc_id, p.regdate::text, p.title_terms @> p_terms))
       FROM search_pending p
      WHERE p.collection_id = p_collection AND p.terms @> p_terms
        AND (p_ca IS NULL OR p.categories && p_ca)
        AND (p_ex_ca IS NULL OR NOT (p.categories && p_ex_ca))
        AND (p_from IS NULL OR p.regdate >= p_from)
        AND (p_to IS NULL OR p.regdate <= p_to)) AS tail
  FROM (SELECT 1) AS one LEFT JOIN search_index_state s ON s.collection_id = p_collection;
END
$fn$;

-- Keep the churning tables compact (each row lives until the next fold, ~0.1 s).
ALTER TABLE search_pending SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000);
ALTER TABLE search_tombstones SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000);

-- A document leaves the index: its pending row goes, or its folded number becomes a tombstone.
-- Two statements on purpose: if a fold holds the pending row, the DELETE waits for it, and the
-- second statement (a new snapshot) then sees the number that fold gave the document.
CREATE FUNCTION search_unindex(p_collection text, p_doc bigint) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM search_pending WHERE collection_id = p_collection AND doc_id = p_doc;
  WITH gone AS (DELETE FROM search_docnos WHERE doc_id = p_doc RETURNING collection_id, docno)
  INSERT INTO search_tombstones (collection_id, docno) SELECT collection_id, docno FROM gone;
END
$fn$;

-- Documents indexed by the previous engine become pending: the folder indexes them.
INSERT INTO search_pending (doc_id, collection_id, regdate, categories, title_terms, terms)
SELECT doc_id, collection_id, regdate, categories,
       tsvector_to_array(title_terms), tsvector_to_array(terms)
FROM doc_search;
DROP FUNCTION search_doc_ids(text, tsquery, integer[], integer[], bigint, bigint, integer, integer, integer);
DROP TABLE doc_search;

-- Down Migration
-- The previous engine's table comes back empty, with its indexes; its search function comes
-- back by migrating 1732300000002 down and up again. Documents must then be indexed again.
CREATE TABLE doc_search (
  doc_id bigint PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
  collection_id text NOT NULL,
  regdate bigint NOT NULL,
  categories integer[] NOT NULL DEFAULT '{}',
  title_terms tsvector NOT NULL,
  terms tsvector NOT NULL
) WITH (toast_tuple_target = 128);
CREATE INDEX doc_search_terms ON doc_search USING gin (terms);
CREATE INDEX doc_search_title ON doc_search USING gin (title_terms);
CREATE INDEX doc_search_regdate ON doc_search (collection_id, regdate DESC, doc_id DESC);
CREATE INDEX doc_search_categories ON doc_search USING gin (categories);
DROP FUNCTION search_unindex(text, bigint);
DROP FUNCTION search_snapshot(text, text[], integer[], integer[], bigint, bigint);
DROP TABLE search_postings;
DROP TABLE search_segments;
DROP TABLE search_deleted;
DROP TABLE search_tombstones;
DROP TABLE search_docnos;
DROP TABLE search_pending;
DROP TABLE search_index_state;
