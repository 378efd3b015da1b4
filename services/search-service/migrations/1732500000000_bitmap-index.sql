-- Up Migration
-- The bitmap index of the Postgres engine (src/index/bitmap; the design is in docs/bitmap-index.md).
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
  doc_id bigint PRIMARY KEY,
  collection_id text NOT NULL,
  regdate bigint NOT NULL,
  categories integer[] NOT NULL,
  title_terms text[] COLLATE "C" NOT NULL,
  terms text[] COLLATE "C" NOT NULL
) WITH (toast_tuple_target = 8160);
ALTER TABLE search_pending
  ALTER COLUMN title_terms SET STORAGE MAIN,
  ALTER COLUMN terms SET STORAGE MAIN;
CREATE INDEX search_pending_collection ON search_pending (collection_id, doc_id);

-- The document number of every folded document (to mark it deleted when it changes or goes).
CREATE TABLE search_docnos (
  doc_id bigint PRIMARY KEY,
  collection_id text NOT NULL,
  docno integer NOT NULL
);
CREATE INDEX search_docnos_collection ON search_docnos (collection_id);

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
  -- a small segment's posting lists, all in one value (src/index/postgres/packed-segment.ts);
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
-- the title (the title tier), 'c' a category. data: see src/index/bitmap/postings-codec.ts.
CREATE TABLE search_postings (
  segment_id bigint NOT NULL,
  kind "char" NOT NULL,
  term text COLLATE "C" NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (segment_id, kind, term)
);
ALTER TABLE search_postings ALTER COLUMN data SET STORAGE EXTERNAL;

-- A search reads these tables in one statement, so in one snapshot (SNAPSHOT_SQL in
-- src/index/postgres/index-store.ts).

-- A document leaves the index: its pending row goes, or its folded number becomes a tombstone.
-- Two statements on purpose: if a fold holds the pending row, the DELETE waits for it, and the
-- second statement (a new snapshot) then sees the number that fold gave the document.
CREATE FUNCTION search_unindex(p_doc bigint) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM search_pending WHERE doc_id = p_doc;
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
DROP FUNCTION search_unindex(bigint);
DROP TABLE search_postings;
DROP TABLE search_segments;
DROP TABLE search_deleted;
DROP TABLE search_tombstones;
DROP TABLE search_docnos;
DROP TABLE search_pending;
DROP TABLE search_index_state;
