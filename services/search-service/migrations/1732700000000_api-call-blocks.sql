-- Up Migration
-- The API call limit across instances: an instance admits calls only from blocks of calls it
-- has reserved in the counter row (see src/http/call-limiter.ts). `reserved` is the calls
-- reserved by instances and not yet used or given back; `calls` stays the calls admitted.
-- A block is only granted while calls + reserved stay within the maximum, so the instances
-- together never admit more than max_api_calls in a window.
ALTER TABLE api_calls ADD COLUMN reserved bigint NOT NULL DEFAULT 0 CHECK (reserved >= 0);

-- In one round trip, under the row lock: first settles what the instance used of its earlier
-- blocks (p_used: calls += p_used, reserved -= p_used), then reserves a new block of at most
-- p_block calls, at most 1/p_share of what is left above p_margin, exactly one call within
-- p_margin of the maximum, and none when nothing is left (granted = 0).
CREATE FUNCTION take_api_calls(
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

-- Down Migration
DROP FUNCTION take_api_calls(text, bigint, bigint, bigint, bigint, bigint, bigint);
ALTER TABLE api_calls DROP COLUMN reserved;
