-- Up Migration
-- search_snapshot's pending matches carry their categories too ([doc_id, regdate, in title,
-- categories]): a search listing many categories filters the tail itself, with a hash set,
-- instead of sending the list here, where `categories && p_ca` compares every pair (100,000
-- listed categories over 1,000 pending rows: about a second). Short lists are still applied
-- here, as before. Same signature and result type: a caller that ignores the fourth element
-- (an instance not yet updated) gets what it got before.
CREATE OR REPLACE FUNCTION search_snapshot(
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
    (SELECT json_agg(json_build_array(p.doc_id, p.regdate::text, p.title_terms @> p_terms, p.categories))
       FROM search_pending p
      WHERE p.collection_id = p_collection AND p.terms @> p_terms
        AND (p_ca IS NULL OR p.categories && p_ca)
        AND (p_ex_ca IS NULL OR NOT (p.categories && p_ex_ca))
        AND (p_from IS NULL OR p.regdate >= p_from)
        AND (p_to IS NULL OR p.regdate <= p_to)) AS tail
  FROM (SELECT 1) AS one LEFT JOIN search_index_state s ON s.collection_id = p_collection;
END
$fn$;

-- Down Migration
CREATE OR REPLACE FUNCTION search_snapshot(
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
