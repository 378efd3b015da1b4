-- Up Migration
-- search_snapshot_plan: search_snapshot for a query plan (src/index/query-plan.ts: an AND of
-- clauses, each an OR of alternatives, with forms derived for spacing from the collection's
-- dictionary). The dictionary decides the plan only once the posting lists are read, after
-- this statement, so the pending tail is filtered loosely here and matched exactly by the
-- service: a pending row comes back when it has every p_required term and some p_wanted term,
-- with its terms and its title terms among p_wanted ([doc_id, regdate, terms, categories,
-- title terms]: categories stay the fourth element). pending_df: per p_lookups term, the
-- number of pending rows of the collection that have it (the dictionary's pending part, so a
-- fold never changes what a plan is). prefix=1 (src/index/prefix-expansion.ts): a pending
-- match also needs a term in [p_prefix, p_prefix_upper), as in search_snapshot; each row's
-- terms then include p_prefix_mark, the plan's term for the prefix (every row has such a term),
-- and its title terms too when its title has one. search_snapshot stays for instances not yet
-- updated.
-- Both functions plan their statement once per connection (a generic plan): with custom plans,
-- PL/pgSQL planned the statement again on every call, which cost more than running it
-- (search_snapshot: 72 µs a call of which 22 µs ran the statement, in a loop of 6,000 searches).
ALTER FUNCTION search_snapshot(text, text[], integer[], integer[], bigint, bigint, text, text)
  SET plan_cache_mode = force_generic_plan;

CREATE FUNCTION search_snapshot_plan(
  p_collection text,
  p_required text[],
  p_ca integer[],
  p_ex_ca integer[],
  p_from bigint,
  p_to bigint,
  p_wanted text[],
  p_lookups text[],
  p_prefix text DEFAULT NULL,
  p_prefix_upper text DEFAULT NULL,
  p_prefix_mark text DEFAULT NULL
)
RETURNS TABLE (epoch bigint, next_docno integer, segments json, deleted json, tombstones integer[], tail json, pending_df json)
LANGUAGE plpgsql STABLE
SET enable_seqscan = off
SET enable_bitmapscan = off
SET plan_cache_mode = force_generic_plan
AS $fn$
BEGIN
  -- One statement, one snapshot. The parts search_snapshot reads (segments, deleted bitmaps,
  -- tombstones) are read as it reads them; the pending rows are read once (`rows`: those with
  -- a wanted term, or all with a prefix), for the tail (with every filter) and pending_df.
  -- Each extra pass over the pending rows cost a search about as much as all the rest of
  -- its SQL (their term arrays are read whole).
  RETURN QUERY
  WITH rows AS MATERIALIZED (
    SELECT p.doc_id, p.regdate, p.categories, p.terms, p.title_terms
      FROM search_pending p
     WHERE p.collection_id = p_collection
       -- with a prefix, a row may have no wanted term at all (q is the prefix alone)
       AND (p.terms && p_wanted OR p_prefix IS NOT NULL)
  )
  SELECT s.epoch, s.next_docno,
    (SELECT json_agg(json_build_array(g.id, g.first_docno, g.doc_count, g.packed IS NOT NULL) ORDER BY g.first_docno)
       FROM search_segments g WHERE g.collection_id = p_collection AND g.retired_at IS NULL),
    (SELECT json_agg(json_build_array(d.chunk, d.version))
       FROM search_deleted d WHERE d.collection_id = p_collection),
    (SELECT array_agg(t.docno) FROM search_tombstones t WHERE t.collection_id = p_collection),
    (SELECT json_agg(json_build_array(r.doc_id, r.regdate::text,
              ARRAY(SELECT w FROM unnest(p_wanted) AS w WHERE w = ANY(r.terms))
                || CASE WHEN p_prefix IS NULL THEN '{}'::text[] ELSE ARRAY[p_prefix_mark] END,
              r.categories,
              ARRAY(SELECT w FROM unnest(p_wanted) AS w WHERE w = ANY(r.title_terms))
                || CASE WHEN p_prefix IS NOT NULL AND EXISTS (
                     SELECT 1 FROM unnest(r.title_terms) AS tt(term)
                      WHERE tt.term COLLATE "C" >= p_prefix AND tt.term COLLATE "C" < p_prefix_upper)
                   THEN ARRAY[p_prefix_mark] ELSE '{}'::text[] END))
       FROM rows r
      WHERE r.terms @> p_required
        AND (p_prefix IS NULL OR EXISTS (SELECT 1 FROM unnest(r.terms) AS pt(term)
              WHERE pt.term COLLATE "C" >= p_prefix AND pt.term COLLATE "C" < p_prefix_upper))
        AND (p_ca IS NULL OR r.categories && p_ca)
        AND (p_ex_ca IS NULL OR NOT (r.categories && p_ex_ca))
        AND (p_from IS NULL OR r.regdate >= p_from)
        AND (p_to IS NULL OR r.regdate <= p_to)),
    -- the lookups are among the wanted terms: a row with one is in `rows`
    (SELECT json_object_agg(l.term, l.n)
       FROM (SELECT k AS term, count(*) AS n
               FROM rows r CROSS JOIN LATERAL unnest(r.terms) AS k
              WHERE cardinality(p_lookups) > 0 AND r.terms && p_lookups AND k = ANY(p_lookups)
              GROUP BY k) AS l)
  FROM (SELECT 1) AS one LEFT JOIN search_index_state s ON s.collection_id = p_collection;
END
$fn$;

-- Down Migration
ALTER FUNCTION search_snapshot(text, text[], integer[], integer[], bigint, bigint, text, text)
  RESET plan_cache_mode;
DROP FUNCTION search_snapshot_plan(text, text[], integer[], integer[], bigint, bigint, text[], text[], text, text, text);
