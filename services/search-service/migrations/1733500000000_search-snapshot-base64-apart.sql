-- Up Migration
-- The documents and posting lists a search reads with its snapshot (1733400000000) came back as
-- base64 inside JSON: PostgreSQL broke each base64 text into lines and escaped every character
-- of it into the JSON value, and the service parsed that JSON before decoding the base64.
-- Measured with pgbench on a collection of 300,000 documents (2026-12-02), the ten documents of
-- a page cost 0.60-0.65 ms that way against 0.30-0.35 ms as the same base64 texts joined by
-- commas outside the JSON (0.06-0.07 ms without them); most searches read a page with their
-- snapshot, and the wide mix reads lists cold. So `docs` and `lists` keep their other columns
-- and say nothing of the bytes, and `doc_data` / `list_data` hold the base64 texts in the same
-- order (by position), joined by commas (base64 has none): a list a segment lacks is an empty
-- text. The service still reads bytes, never a JavaScript string of the document (see
-- src/store/result-documents.ts). The three parts (pending rows, page, lists) are joined with no
-- join clause, a nested loop, which the function's settings disable: up to PostgreSQL 17 that
-- adds a cost of 1e10, and JIT compiled the statement at every call (~0.5 s, on PostgreSQL 15
-- with jit on, its default). `jit = off`: the statement never needs it.
-- search_snapshot_rows stays for instances not yet updated.
CREATE FUNCTION search_snapshot_read(p_collection text, p_known bigint[], p_docs bigint[],
                                     p_list_segments bigint[], p_list_kinds "char"[], p_list_terms text[])
RETURNS TABLE (epoch bigint, next_docno integer, segments json, deleted json, tombstones integer[], held bigint[], fresh json, docs json, doc_data text, lists json, list_data text)
LANGUAGE plpgsql STABLE
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_nestloop = off
SET enable_mergejoin = off
SET plan_cache_mode = force_generic_plan
SET jit = off
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
    pending.fresh,
    page.docs,
    page.doc_data,
    read.lists,
    read.list_data
  FROM (
    SELECT json_agg(json_build_array(
             d.id::text, d.dockey, d.version,
             t.size, t.thumbnail_key, t.source_url, t.source_width, t.source_height) ORDER BY d.id) AS docs,
           string_agg(encode(convert_to(d.doc, 'UTF8'), 'base64'), ',' ORDER BY d.id) AS doc_data
      FROM documents d
      LEFT JOIN LATERAL (
        SELECT t.size, t.thumbnail_key, t.source_url, t.source_width, t.source_height
          FROM thumbnails t WHERE t.collection_id = d.collection_id AND t.doc_id = d.id
      ) t ON true
     WHERE d.id = ANY(p_docs) AND d.collection_id = p_collection
  ) AS page,
  (
    SELECT array_agg(p.row_id) FILTER (WHERE k.id IS NOT NULL) AS held,
           json_agg(json_build_array(p.row_id, p.doc_id, p.regdate::text, p.categories,
                                     p.terms, p.title_terms)) FILTER (WHERE k.id IS NULL) AS fresh
      FROM search_pending p
      LEFT JOIN unnest(p_known) AS k(id) ON k.id = p.row_id
     WHERE p.collection_id = p_collection
  ) AS pending,
  (
    SELECT json_agg(json_build_array(l.segment_id::text, l.kind, l.term) ORDER BY l.n) AS lists,
           string_agg(coalesce(l.data, ''), ',' ORDER BY l.n) AS list_data
      FROM (
        SELECT k.segment_id, k.kind, k.term, k.n,
               (SELECT encode(p.data, 'base64') FROM search_postings p
                 WHERE p.segment_id = k.segment_id AND p.kind = k.kind AND p.term = k.term COLLATE "C") AS data
          FROM unnest(p_list_segments, p_list_kinds, p_list_terms) WITH ORDINALITY AS k(segment_id, kind, term, n)
      ) AS l
  ) AS read;
END
$fn$;

-- Down Migration
DROP FUNCTION search_snapshot_read(text, bigint[], bigint[], bigint[], "char"[], text[]);
