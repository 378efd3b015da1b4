-- Up Migration
-- A search matched the pending tail in SQL: search_snapshot(_plan) compared every wanted term
-- with every term of every pending row (array overlap and `= ANY` are pairwise: ~200 terms a
-- row), which cost 0.5–1.5 ms of PostgreSQL a search with ~40 documents pending (measured at
-- 20,000 documents, the wide mix with writes), more than all the rest of its SQL.
-- A pending row never changes: a change deletes it and inserts another. So each row now has an
-- identity (`row_id`, never reused), an instance keeps the rows it read in its cache, and
-- search_snapshot_rows returns every pending row of the collection, whole only when the caller
-- does not hold it already (p_known: the row ids it holds), else its id. The service matches the
-- tail itself (src/index/postgres/read/pending-tail.ts), with Sets. search_snapshot and
-- search_snapshot_plan stay for instances not yet updated.
-- The identity fills the rows already pending (a rewrite of a table the folder keeps small).
ALTER TABLE search_pending ADD COLUMN row_id bigint GENERATED ALWAYS AS IDENTITY;

-- One statement, one snapshot (as search_snapshot): the collection's state, live segments,
-- deleted-chunk versions, tombstones, and its pending rows: `held`, the ids of those in
-- p_known (the caller has them), and `fresh`, the others whole ([row_id, doc_id, regdate as
-- text, categories, terms, title terms]). The known ids are hashed (a hash join): matching them
-- pairwise would grow with the square of the pending rows.
-- plpgsql for its plan cache (a SQL function with SET clauses is planned on every call before
-- PostgreSQL 18); one generic plan per connection, as the others.
CREATE FUNCTION search_snapshot_rows(p_collection text, p_known bigint[])
RETURNS TABLE (epoch bigint, next_docno integer, segments json, deleted json, tombstones integer[], held bigint[], fresh json)
LANGUAGE plpgsql STABLE
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_nestloop = off
SET enable_mergejoin = off
SET plan_cache_mode = force_generic_plan
AS $fn$
BEGIN
  RETURN QUERY
  SELECT
    (SELECT s.epoch FROM search_index_state s WHERE s.collection_id = p_collection),
    (SELECT s.next_docno FROM search_index_state s WHERE s.collection_id = p_collection),
    (SELECT json_agg(json_build_array(g.id, g.first_docno, g.doc_count, g.packed IS NOT NULL) ORDER BY g.first_docno)
       FROM search_segments g WHERE g.collection_id = p_collection AND g.retired_at IS NULL),
    (SELECT json_agg(json_build_array(d.chunk, d.version))
       FROM search_deleted d WHERE d.collection_id = p_collection),
    (SELECT array_agg(t.docno) FROM search_tombstones t WHERE t.collection_id = p_collection),
    pending.held,
    pending.fresh
  FROM (
    SELECT array_agg(p.row_id) FILTER (WHERE k.id IS NOT NULL) AS held,
           json_agg(json_build_array(p.row_id, p.doc_id, p.regdate::text, p.categories,
                                     p.terms, p.title_terms)) FILTER (WHERE k.id IS NULL) AS fresh
      FROM search_pending p
      LEFT JOIN unnest(p_known) AS k(id) ON k.id = p.row_id
     WHERE p.collection_id = p_collection
  ) AS pending;
END
$fn$;

-- Down Migration
DROP FUNCTION search_snapshot_rows(text, bigint[]);
ALTER TABLE search_pending DROP COLUMN row_id;
