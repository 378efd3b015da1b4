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
  filters text := '';
  wanted integer := p_offset + p_limit;
  total bigint;
  title_ids bigint[] := '{}';
  rest_ids bigint[];
BEGIN
  -- filters no index can serve
  IF p_ca IS NOT NULL THEN filters := filters || ' AND (categories && $2) IS TRUE'; END IF;
  IF p_ex_ca IS NOT NULL THEN filters := filters || ' AND (categories && $3) IS FALSE'; END IF;
  IF p_from IS NOT NULL THEN filters := filters || ' AND (regdate >= $4) IS TRUE'; END IF;
  IF p_to IS NOT NULL THEN filters := filters || ' AND (regdate <= $5) IS TRUE'; END IF;

  -- 1. the exact count, through the terms bitmap
  EXECUTE format($q$SELECT count(*) FROM doc_search
                    WHERE (collection_id = $1) IS TRUE AND terms @@ $6 %s$q$, filters)
    INTO numfound USING p_collection, p_ca, p_ex_ca, p_from, p_to, p_query;
  doc_ids := '{}';
  IF numfound = 0 OR p_offset >= numfound THEN RETURN; END IF;

  -- 2a. relevance: the title tier first
  IF p_sort = 0 THEN
    EXECUTE format($q$SELECT coalesce(array_agg(doc_id), '{}') FROM (
                        SELECT doc_id FROM doc_search
                        WHERE (collection_id = $1) IS TRUE AND title_terms @@ $6 %s
                        ORDER BY regdate DESC, doc_id DESC LIMIT $7) t$q$, filters)
      INTO title_ids USING p_collection, p_ca, p_ex_ca, p_from, p_to, p_query, wanted;
    IF cardinality(title_ids) >= wanted THEN
      doc_ids := title_ids[p_offset + 1 : wanted];
      RETURN;
    END IF;
    filters := filters || ' AND NOT (title_terms @@ $6)';
    wanted := wanted - cardinality(title_ids);
  END IF;

  -- 2b. newest first (all matches, or the matches outside the title tier)
  SELECT document_count INTO total FROM collections WHERE id = p_collection;
  IF wanted::numeric * greatest(total, 1) / numfound <= walk_budget THEN
    -- dense: walk the date index newest first (bounded by the dates), stop at the page
    PERFORM set_config('enable_indexscan', 'on', true);
    PERFORM set_config('enable_bitmapscan', 'off', true);
    IF p_from IS NOT NULL THEN filters := filters || ' AND regdate >= $4'; END IF;
    IF p_to IS NOT NULL THEN filters := filters || ' AND regdate <= $5'; END IF;
    EXECUTE format($q$SELECT coalesce(array_agg(doc_id), '{}') FROM (
                        SELECT doc_id FROM doc_search
                        WHERE collection_id = $1 AND terms @@ $6 %s
                        ORDER BY regdate DESC, doc_id DESC LIMIT $7) t$q$, filters)
      INTO rest_ids USING p_collection, p_ca, p_ex_ca, p_from, p_to, p_query, wanted;
  ELSE
    -- sparse: the terms bitmap and a top-N sort
    EXECUTE format($q$SELECT coalesce(array_agg(doc_id), '{}') FROM (
                        SELECT doc_id FROM doc_search
                        WHERE (collection_id = $1) IS TRUE AND terms @@ $6 %s
                        ORDER BY regdate DESC, doc_id DESC LIMIT $7) t$q$, filters)
      INTO rest_ids USING p_collection, p_ca, p_ex_ca, p_from, p_to, p_query, wanted;
  END IF;
  doc_ids := (title_ids || rest_ids)[p_offset + 1 : p_offset + p_limit];
END
$fn$;

-- Down Migration
DROP FUNCTION search_doc_ids(text, tsquery, integer[], integer[], bigint, bigint, integer, integer, integer);
