-- Up Migration
-- The link identifies an item (the spec makes guid = link, and a feed must not repeat a
-- guid): at most one row per link. Rows written before this constraint may repeat a
-- link (a retried POST did that): keep the newest of each link (last written: updated_at,
-- then the higher id), delete the others, and mark the feeds they were in as changed, so
-- Last-Modified moves and no If-Modified-Since gets a 304 for the old content.
-- No writer may slip a duplicate in between the clean-up and the constraint.
LOCK TABLE feed_items IN SHARE ROW EXCLUSIVE MODE;

WITH ranked AS (
  SELECT id, row_number() OVER (PARTITION BY link ORDER BY updated_at DESC, id DESC) AS rank
  FROM feed_items
), removed AS (
  DELETE FROM feed_items f USING ranked r
  WHERE f.id = r.id AND r.rank > 1
  RETURNING f.category
), touched AS (
  SELECT 'all'::text AS feed FROM removed
  UNION
  SELECT category FROM removed
)
INSERT INTO feed_state (feed, changed_at)
SELECT feed, clock_timestamp() FROM touched
ON CONFLICT (feed) DO UPDATE SET changed_at = GREATEST(feed_state.changed_at, EXCLUDED.changed_at);

ALTER TABLE feed_items ADD CONSTRAINT feed_items_link_key UNIQUE (link);

-- Instances still running the previous version drop every cached feed (on commit).
SELECT pg_notify('feed_items_changed', 'all,biz,culture,food,it,life,trip');

-- Down Migration
ALTER TABLE feed_items DROP CONSTRAINT feed_items_link_key;
