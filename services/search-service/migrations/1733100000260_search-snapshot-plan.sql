-- Up Migration
-- search_snapshot_plan: search_snapshot for a query plan (src/index/query-plan.ts: an AND of
-- clauses, each an OR of alternatives, with forms derived for spacing from the collection's
-- dictionary). The dictionary decides the plan only once the posting lists are read, after
-- this statement, so the pending tail is filtered loosely here and matched exactly by the
-- service: a pending row comes back when it has every p_required term and some p_wanted term,
-- with its terms and its title terms among p_wanted ([doc_id, regdate, terms, categories,
-- title terms]: categories stay the fourth element). pending_df: per p_lookups term, the
-- number of pending rows of the collection that have it (the dictionary's pending part, so a
-- fold never changes what a plan is). prefix=1 (src/index/prefix-expansion.ts): p_prefix and
-- p_prefix_upper go to search_snapshot (a pending match needs a term in that range); each row's
-- terms then include p_prefix_mark, the plan's term for the prefix (every row has such a term),
-- and its title terms too when its title has one. search_snapshot stays for instances not yet
-- updated.
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
LANGUAGE sql STABLE
AS $fn$
  -- search_snapshot's answer with p_required as its terms (its filters, its tail rows), each
  -- tail row read again by its key for its terms: one statement, one snapshot (a STABLE
  -- function sees its caller's)
  SELECT h.epoch, h.next_docno, h.segments, h.deleted, h.tombstones,
    (SELECT json_agg(json_build_array(p.doc_id, p.regdate::text,
              ARRAY(SELECT w FROM unnest(p_wanted) AS w WHERE w = ANY(p.terms))
                || CASE WHEN p_prefix IS NULL THEN '{}'::text[] ELSE ARRAY[p_prefix_mark] END,
              p.categories,
              ARRAY(SELECT w FROM unnest(p_wanted) AS w WHERE w = ANY(p.title_terms))
                || CASE WHEN p_prefix IS NOT NULL AND EXISTS (
                     SELECT 1 FROM unnest(p.title_terms) AS tt(term)
                      WHERE tt.term COLLATE "C" >= p_prefix AND tt.term COLLATE "C" < p_prefix_upper)
                   THEN ARRAY[p_prefix_mark] ELSE '{}'::text[] END))
       FROM json_array_elements(h.tail) AS t
       JOIN search_pending p ON p.collection_id = p_collection AND p.doc_id = (t->>0)::bigint
      -- with a prefix, a row may have no wanted term at all (q is the prefix alone)
      WHERE p.terms && p_wanted OR p_prefix IS NOT NULL) AS tail,
    (SELECT json_object_agg(l.term, l.n)
       FROM (SELECT k AS term, count(*) AS n
               FROM search_pending p CROSS JOIN unnest(p_lookups) AS k
              WHERE cardinality(p_lookups) > 0 -- most queries: no pass over the rows
                AND p.collection_id = p_collection AND k = ANY(p.terms)
              GROUP BY k) AS l) AS pending_df
  FROM search_snapshot(p_collection, p_required, p_ca, p_ex_ca, p_from, p_to, p_prefix, p_prefix_upper) AS h;
$fn$;

-- Down Migration
DROP FUNCTION search_snapshot_plan(text, text[], integer[], integer[], bigint, bigint, text[], text[], text, text, text);
