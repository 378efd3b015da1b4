-- Up Migration
-- The version of the analyser (src/index/analyser.ts, ANALYSER_VERSION) that made the Postgres
-- engine's terms. An instance whose analyser is another version re-analyses every stored
-- document at start-up (src/index/postgres/write/reanalyse.ts), then records its version here.
-- One row. While a re-analysis runs, `target` is the version it makes and (done_collection,
-- done_doc) the last document done, in (collection_id, id) order, written in the same
-- transaction as that document's new terms: an instance that stops midway leaves the work
-- where another (or the next start) picks it up.
CREATE TABLE search_analyser (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  version integer NOT NULL,
  target integer,
  done_collection text NOT NULL DEFAULT '',
  done_doc bigint NOT NULL DEFAULT 0
);
-- Documents stored so far were analysed by version 1 (syllable bigrams); an empty database
-- starts at version 2 (Korean particles) and has nothing to re-analyse.
INSERT INTO search_analyser (version)
SELECT CASE WHEN EXISTS (SELECT 1 FROM documents) THEN 1 ELSE 2 END;

-- Down Migration
DROP TABLE search_analyser;
