-- Up Migration
-- Search-as-you-type (prefix=1): search_snapshot's pending matches may also require a term
-- in [p_prefix, p_prefix_upper) (code point order: every term that starts with the prefix;
-- src/index/prefix-expansion.ts), in the terms for a match and in the title terms for the
-- title tier, in the same statement as the segments (one snapshot). p_terms are then the other
-- terms of q. Both new parameters default to NULL: a caller that sends six arguments (an
-- instance not yet updated) gets what it got before. A new signature, so the old function is
-- dropped first (two overloads would make a six-argument call ambiguous).
DROP FUNCTION search_snapshot(text, text[], integer[], integer[], bigint, bigint);
CREATE FUNCTION search_snapshot(
  p_collection text,
  p_terms text[],
  p_ca integer[],
  p_ex_ca integer[],
  p_from bigint,
  p_to bigint,
  p_prefix text DEFAULT NULL,
  p_prefix_upper text DEFAULT NULL
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
    (SELECT json_agg(json_build_array(p.doc_id, p.regdate::text,
              p.title_terms @> p_terms
                AND (p_prefix IS NULL OR EXISTS (SELECT 1 FROM unnest(p.title_terms) AS t(term)
                      WHERE t.term COLLATE "C" >= p_prefix AND t.term COLLATE "C" < p_prefix_upper)),
              p.categories))
       FROM search_pending p
      WHERE p.collection_id = p_collection AND p.terms @> p_terms
        AND (p_prefix IS NULL OR EXISTS (SELECT 1 FROM unnest(p.terms) AS t(term)
              WHERE t.term COLLATE "C" >= p_prefix AND t.term COLLATE "C" < p_prefix_upper))
        AND (p_ca IS NULL OR p.categories && p_ca)
        AND (p_ex_ca IS NULL OR NOT (p.categories && p_ex_ca))
        AND (p_from IS NULL OR p.regdate >= p_from)
        AND (p_to IS NULL OR p.regdate <= p_to)) AS tail
  FROM (SELECT 1) AS one LEFT JOIN search_index_state s ON s.collection_id = p_collection;
END
$fn$;


-- Down Migration
DROP FUNCTION search_snapshot(text, text[], integer[], integer[], bigint, bigint, text, text);
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

