-- Up Migration
-- Nothing of a deleted collection remains or comes back (docs/postgres-engine.md, "Deleting a
-- collection"). The tables that only the folder, the merger and the call limiter write get a
-- foreign key to their collection, so no row of a collection that is gone can be inserted
-- again, by any instance. The tables that document writes insert
-- into (search_pending, search_tombstones, thumbnail_jobs, search_outbox) get none: a writer
-- holds its document's row when it writes them, and a key share on the collection row taken
-- after that would deadlock with the delete (which holds the collection row while it deletes
-- the documents). The delete removes their rows after the documents, when no writer is left.

-- What deletions before this migration left behind.
DELETE FROM search_segments s WHERE NOT EXISTS (SELECT 1 FROM collections c WHERE c.id = s.collection_id);
DELETE FROM search_postings p WHERE NOT EXISTS (SELECT 1 FROM search_segments s WHERE s.id = p.segment_id);
DELETE FROM search_index_state s WHERE NOT EXISTS (SELECT 1 FROM collections c WHERE c.id = s.collection_id);
DELETE FROM search_deleted d WHERE NOT EXISTS (SELECT 1 FROM collections c WHERE c.id = d.collection_id);
DELETE FROM search_docnos n WHERE NOT EXISTS (SELECT 1 FROM collections c WHERE c.id = n.collection_id);
DELETE FROM search_pending p WHERE NOT EXISTS (SELECT 1 FROM collections c WHERE c.id = p.collection_id);
DELETE FROM search_tombstones t WHERE NOT EXISTS (SELECT 1 FROM collections c WHERE c.id = t.collection_id);
DELETE FROM api_calls a WHERE NOT EXISTS (SELECT 1 FROM collections c WHERE c.id = a.collection_id);
DELETE FROM thumbnails t WHERE NOT EXISTS (SELECT 1 FROM collections c WHERE c.id = t.collection_id);
DELETE FROM thumbnail_jobs j WHERE NOT EXISTS (SELECT 1 FROM collections c WHERE c.id = j.collection_id);

-- The folder's state and deleted bitmaps go with their collection (a few rows each).
ALTER TABLE search_index_state ADD CONSTRAINT search_index_state_collection_fk
  FOREIGN KEY (collection_id) REFERENCES collections (id) ON DELETE CASCADE;
ALTER TABLE search_deleted ADD CONSTRAINT search_deleted_collection_fk
  FOREIGN KEY (collection_id) REFERENCES collections (id) ON DELETE CASCADE;
-- Segments and document numbers are deleted by the collection's delete itself, after its
-- documents (src/index/postgres/write/change-store.ts dropIndex): numbers because document writers
-- delete them too (search_unindex), so a cascade would lock them while the delete still waits
-- for those writers' documents; segments because their posting lists are found through them.
-- The key is checked when the transaction commits. Posting lists get no key of their own: a
-- check per row would add ~7 us to each of a merge's rows (measured: 30,000 rows 90 -> 310 ms);
-- they are written in the same transaction as their segment, whose key is checked.
CREATE INDEX search_segments_collection ON search_segments (collection_id);
ALTER TABLE search_segments ADD CONSTRAINT search_segments_collection_fk
  FOREIGN KEY (collection_id) REFERENCES collections (id) DEFERRABLE INITIALLY DEFERRED;
CREATE INDEX search_docnos_collection ON search_docnos (collection_id);
ALTER TABLE search_docnos ADD CONSTRAINT search_docnos_collection_fk
  FOREIGN KEY (collection_id) REFERENCES collections (id) DEFERRABLE INITIALLY DEFERRED;
-- Counters of another instance settled after the delete are not recreated (see take_api_calls
-- and src/http/call-blocks.ts: a gone collection's calls are not counted).
ALTER TABLE api_calls ADD CONSTRAINT api_calls_collection_fk
  FOREIGN KEY (collection_id) REFERENCES collections (id) ON DELETE CASCADE;

-- As before, and a collection that is gone (deleted while the add waited for its row) fails
-- with foreign_key_violation instead of looking full.
CREATE OR REPLACE FUNCTION take_document_slot(p_collection text) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  UPDATE collections SET document_count = document_count + 1
  WHERE id = p_collection AND document_count < max_documents;
  IF NOT FOUND THEN
    IF NOT EXISTS (SELECT 1 FROM collections WHERE id = p_collection) THEN
      RAISE EXCEPTION 'collection % does not exist', p_collection USING ERRCODE = 'foreign_key_violation';
    END IF;
    RAISE EXCEPTION 'collection % is full', p_collection USING ERRCODE = 'SF001';
  END IF;
END
$fn$;

-- As before (1732700000000), except that a collection that is gone gets no counter row and no
-- calls (granted = 0, calls = 0, reserved = 0): the counter row is inserted from the collection
-- row, under a key share lock, which waits for a delete under way.
CREATE OR REPLACE FUNCTION take_api_calls(
  p_collection text,
  p_window bigint,
  p_used bigint,
  p_max bigint,
  p_block bigint,
  p_margin bigint,
  p_share bigint,
  OUT granted bigint,
  OUT calls bigint,
  OUT reserved bigint
)
LANGUAGE plpgsql AS $fn$
DECLARE
  remaining bigint;
BEGIN
  INSERT INTO api_calls AS a (collection_id, window_start, calls)
  SELECT c.id, p_window, p_used FROM collections c WHERE c.id = p_collection FOR KEY SHARE
  ON CONFLICT (collection_id, window_start) DO UPDATE
    SET calls = a.calls + EXCLUDED.calls, reserved = greatest(a.reserved - EXCLUDED.calls, 0)
  RETURNING a.calls, a.reserved INTO calls, reserved;
  IF NOT FOUND THEN
    granted := 0;
    calls := 0;
    reserved := 0;
    RETURN;
  END IF;
  remaining := p_max - calls - reserved;
  granted := CASE
    WHEN remaining <= 0 THEN 0
    WHEN remaining <= p_margin THEN 1
    ELSE least(p_block, greatest(1, (remaining - p_margin) / p_share))
  END;
  IF granted > 0 THEN
    UPDATE api_calls AS a SET reserved = a.reserved + granted
    WHERE a.collection_id = p_collection AND a.window_start = p_window
    RETURNING a.reserved INTO reserved;
  END IF;
END
$fn$;

-- Down Migration
CREATE OR REPLACE FUNCTION take_api_calls(
  p_collection text,
  p_window bigint,
  p_used bigint,
  p_max bigint,
  p_block bigint,
  p_margin bigint,
  p_share bigint,
  OUT granted bigint,
  OUT calls bigint,
  OUT reserved bigint
)
LANGUAGE plpgsql AS $fn$
DECLARE
  remaining bigint;
BEGIN
  INSERT INTO api_calls AS a (collection_id, window_start, calls)
  VALUES (p_collection, p_window, p_used)
  ON CONFLICT (collection_id, window_start) DO UPDATE
    SET calls = a.calls + EXCLUDED.calls, reserved = greatest(a.reserved - EXCLUDED.calls, 0)
  RETURNING a.calls, a.reserved INTO calls, reserved;
  remaining := p_max - calls - reserved;
  granted := CASE
    WHEN remaining <= 0 THEN 0
    WHEN remaining <= p_margin THEN 1
    ELSE least(p_block, greatest(1, (remaining - p_margin) / p_share))
  END;
  IF granted > 0 THEN
    UPDATE api_calls AS a SET reserved = a.reserved + granted
    WHERE a.collection_id = p_collection AND a.window_start = p_window
    RETURNING a.reserved INTO reserved;
  END IF;
END
$fn$;
CREATE OR REPLACE FUNCTION take_document_slot(p_collection text) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  UPDATE collections SET document_count = document_count + 1
  WHERE id = p_collection AND document_count < max_documents;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'collection % is full', p_collection USING ERRCODE = 'SF001';
  END IF;
END
$fn$;
ALTER TABLE api_calls DROP CONSTRAINT api_calls_collection_fk;
ALTER TABLE search_docnos DROP CONSTRAINT search_docnos_collection_fk;
DROP INDEX search_docnos_collection;
ALTER TABLE search_segments DROP CONSTRAINT search_segments_collection_fk;
DROP INDEX search_segments_collection;
ALTER TABLE search_deleted DROP CONSTRAINT search_deleted_collection_fk;
ALTER TABLE search_index_state DROP CONSTRAINT search_index_state_collection_fk;
