-- Up Migration
-- The documents as the client sent them (doc: the JSON re-serialised with every number's
-- exact text). id is new on every add (also a re-add after delete); version grows with every
-- update and field update. The oldest document of a collection is the one with the lowest id.
CREATE TABLE documents (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  collection_id text NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
  dockey text NOT NULL,
  version bigint NOT NULL DEFAULT 1,
  doc text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT documents_dockey_unique UNIQUE (collection_id, dockey)
);
CREATE INDEX documents_oldest ON documents (collection_id, id);

-- The Postgres engine's search columns, in their own narrow table (never next to the JSON):
-- date and categories for filters and sorting, the analysed terms of the title (ranking) and
-- of every icontents_* field (matching). A row whose terms make it longer than ~2 KB sends
-- them to TOAST uncompressed (STORAGE EXTERNAL: no CPU spent on compressing lexemes) and
-- keeps only a pointer (toast_tuple_target 128), so heap visits for counts stay cheap;
-- categories and the title terms stay inline (STORAGE MAIN) because filters and ranking read
-- them for every match.
CREATE TABLE doc_search (
  doc_id bigint PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
  collection_id text NOT NULL,
  regdate bigint NOT NULL,
  categories integer[] NOT NULL DEFAULT '{}',
  title_terms tsvector NOT NULL,
  terms tsvector NOT NULL
) WITH (toast_tuple_target = 128);
ALTER TABLE doc_search
  ALTER COLUMN title_terms SET STORAGE MAIN,
  ALTER COLUMN categories SET STORAGE MAIN,
  ALTER COLUMN terms SET STORAGE EXTERNAL;
CREATE INDEX doc_search_terms ON doc_search USING gin (terms);
CREATE INDEX doc_search_title ON doc_search USING gin (title_terms);
CREATE INDEX doc_search_regdate ON doc_search (collection_id, regdate DESC, doc_id DESC);

-- Down Migration
DROP TABLE doc_search;
DROP TABLE documents;
