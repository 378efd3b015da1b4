-- Up Migration
-- One search of the Postgres engine in one round trip: the exact number of matches and the
-- ids of one page.
--
-- The planner prices `terms @@ q` as cheap when it is a filter, but as a filter it reads every
-- row's terms back from TOAST. The queries below therefore leave it no index but the GIN on
-- terms (the other conditions are wrapped in `(...) IS TRUE`, which no index matches and which
-- costs nothing per row), except where a bounded walk of the date index is wanted.
--
-- 1. numfound: count(*) through the terms bitmap. A bitmap of a plain tsquery needs no
--    recheck, so the cost is one visibility check (plus cheap inline filters) per match.
-- 2. the page, knowing numfound:
--    - relevance (sort 0) has two tiers: documents with every query term in the title first
--      (through the title's own small GIN index; title terms are stored inline), then the
--      others; newest first inside a tier;
--    - newest first: when matches are dense enough that walking the date index newest-first
--      reaches the page within walk_budget rows, that walk (it stops at the page); otherwise
--      the matches through the terms bitmap and a top-N sort.
-- The SET clauses apply while the function runs, also to the planning of the queries inside
-- (no JIT, no parallel workers, no sequential scans); the plan switches made inside with
-- set_config are undone when it returns.
--
-- Performance (measured with bench/search-bench.mjs; see the README's Benchmark):
-- - a GIN index on categories, so that `ca` is a BitmapAnd with the terms bitmap (the count
--   visits only the rows that have the category, not every match of the word);
-- - date bounds go to the date index together with the collection (a BitmapAnd too: the count
--   of "common word, one month" visits the month's matches, not all of the word's);
-- - relevance: when the matches are dense and the page is short, the title tier first tries
--   the newest 50 × (start + len) rows of the date index with the (inline) title terms as
--   the filter, which holds the page unless title matches are rare there; else the title
--   bitmap and a top-N sort.
-- Order within a tier: regdate DESC, doc_id DESC.
CREATE INDEX doc_search_categories ON doc_search USING gin (categories);

CREATE FUNCTION search_doc_ids(
  p_collection text,
  p_query tsquery,
  p_ca integer[],
  p_ex_ca integer[],
  p_from bigint,
  p_to bigint,
  p_sort integer,
  p_offset integer,
  p_limit integer,
  OUT numfound bigint,
  OUT doc_ids bigint[]
)
LANGUAGE plpgsql STABLE
SET jit = off
SET max_parallel_workers_per_gather = 0
SET enable_seqscan = off
SET enable_indexscan = off
SET enable_bitmapscan = on
AS $fn$
DECLARE
  walk_budget constant integer := 2000;
  title_walk_factor constant integer := 50;
  filters text := '';
  wanted integer := p_offset + p_limit;
  total bigint;
  dense boolean;
  title_ids bigint[] := '{}';
  rest_ids bigint[];
  bounds text := '';
BEGIN
  -- ca may be served by its GIN index (BitmapAnd with the terms bitmap); ex_ca by none
  IF p_ca IS NOT NULL THEN filters := filters || ' AND categories && $2'; END IF;
  IF p_ex_ca IS NOT NULL THEN filters := filters || ' AND (categories && $3) IS FALSE'; END IF;
  -- date bounds go to the date index together with the collection (BitmapAnd)
  IF p_from IS NOT NULL THEN bounds := bounds || ' AND regdate >= $4'; END IF;
  IF p_to IS NOT NULL THEN bounds := bounds || ' AND regdate <= $5'; END IF;
  IF bounds <> '' THEN
    filters := filters || ' AND collection_id = $1' || bounds;
  ELSE
    filters := filters || ' AND (collection_id = $1) IS TRUE';
  END IF;

  -- 1. the exact count, through the terms bitmap
  EXECUTE format($q$SELECT count(*) FROM doc_search WHERE terms @@ $6 %s$q$, filters)
    INTO numfound USING p_collection, p_ca, p_ex_ca, p_from, p_to, p_query;
  doc_ids := '{}';
  IF numfound = 0 OR p_offset >= numfound THEN RETURN; END IF;

  SELECT document_count INTO total FROM collections WHERE id = p_collection;
  dense := wanted::numeric * greatest(total, 1) / numfound <= walk_budget;

  -- 2a. relevance: the title tier first
  IF p_sort = 0 THEN
    IF dense AND wanted * title_walk_factor <= walk_budget THEN
      -- the newest wanted * title_walk_factor rows of the date index, title terms (inline) as
      -- the filter: when they hold the page, these are the newest title matches (a miss costs
      -- that short walk)
      PERFORM set_config('enable_indexscan', 'on', true);
      PERFORM set_config('enable_bitmapscan', 'off', true);
      EXECUTE format($q$SELECT coalesce(array_agg(doc_id), '{}') FROM (
                          SELECT doc_id FROM (
                            SELECT doc_id, collection_id, regdate, categories, title_terms FROM doc_search
                            WHERE collection_id = $1 %s
                            ORDER BY regdate DESC, doc_id DESC LIMIT $8) w
                          WHERE title_terms @@ $6 %s
                          ORDER BY regdate DESC, doc_id DESC LIMIT $7) t$q$,
                     bounds, replace(filters, ' AND collection_id = $1', ''))
        INTO title_ids USING p_collection, p_ca, p_ex_ca, p_from, p_to, p_query, wanted,
                             wanted * title_walk_factor;
      PERFORM set_config('enable_indexscan', 'off', true);
      PERFORM set_config('enable_bitmapscan', 'on', true);
    END IF;
    IF cardinality(title_ids) < wanted THEN
      EXECUTE format($q$SELECT coalesce(array_agg(doc_id), '{}') FROM (
                          SELECT doc_id FROM doc_search WHERE title_terms @@ $6 %s
                          ORDER BY regdate DESC, doc_id DESC LIMIT $7) t$q$, filters)
        INTO title_ids USING p_collection, p_ca, p_ex_ca, p_from, p_to, p_query, wanted;
    END IF;
    IF cardinality(title_ids) >= wanted THEN
      doc_ids := title_ids[p_offset + 1 : wanted];
      RETURN;
    END IF;
    filters := filters || ' AND NOT (title_terms @@ $6)';
    wanted := wanted - cardinality(title_ids);
    dense := wanted::numeric * greatest(total, 1) / numfound <= walk_budget;
  END IF;

  -- 2b. newest first (all matches, or the matches outside the title tier)
  IF dense THEN
    -- dense: walk the date index newest first (bounded by the dates), stop at the page
    PERFORM set_config('enable_indexscan', 'on', true);
    PERFORM set_config('enable_bitmapscan', 'off', true);
    EXECUTE format($q$SELECT coalesce(array_agg(doc_id), '{}') FROM (
                        SELECT doc_id FROM doc_search
                        WHERE collection_id = $1 AND terms @@ $6 %s
                        ORDER BY regdate DESC, doc_id DESC LIMIT $7) t$q$,
                   replace(filters, ' AND (collection_id = $1) IS TRUE', '') || bounds)
      INTO rest_ids USING p_collection, p_ca, p_ex_ca, p_from, p_to, p_query, wanted;
  ELSE
    -- sparse: the terms bitmap and a top-N sort
    EXECUTE format($q$SELECT coalesce(array_agg(doc_id), '{}') FROM (
                        SELECT doc_id FROM doc_search WHERE terms @@ $6 %s
                        ORDER BY regdate DESC, doc_id DESC LIMIT $7) t$q$, filters)
      INTO rest_ids USING p_collection, p_ca, p_ex_ca, p_from, p_to, p_query, wanted;
  END IF;
  doc_ids := (title_ids || rest_ids)[p_offset + 1 : p_offset + p_limit];
END
$fn$;


-- Down Migration
DROP FUNCTION IF EXISTS search_doc_ids(text, tsquery, integer[], integer[], bigint, bigint, integer, integer, integer);
DROP INDEX IF EXISTS doc_search_categories;
