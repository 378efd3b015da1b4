-- Up Migration
-- A collection: its key (SHA-256 of the API key, never the key), its limits, and the number
-- of documents it holds (kept in the same transactions that add and delete documents).
CREATE TABLE collections (
  id text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9]{8}$'),
  apikey_hash bytea NOT NULL CHECK (length(apikey_hash) = 32),
  max_documents integer NOT NULL CHECK (max_documents >= 0),
  max_api_calls bigint NOT NULL CHECK (max_api_calls >= 0),
  thumbnail_size text NOT NULL DEFAULT '130X130',
  document_count integer NOT NULL DEFAULT 0 CHECK (document_count >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- API calls per collection and fixed window (window_start: UNIX seconds). Instances add
-- their locally counted calls in batches (see src/http/call-limiter.ts).
CREATE TABLE api_calls (
  collection_id text NOT NULL,
  window_start bigint NOT NULL,
  calls bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (collection_id, window_start)
);

-- The exact check of the API call limit, in one round trip: adds the calls an instance has
-- counted locally (p_pending), then takes one more call if the count is still below p_max.
-- The counter row stays locked between the two steps, so parallel takers cannot both pass.
CREATE FUNCTION take_api_call(
  p_collection text,
  p_window bigint,
  p_pending bigint,
  p_max bigint,
  OUT total bigint,
  OUT taken boolean
)
LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO api_calls AS a (collection_id, window_start, calls)
  VALUES (p_collection, p_window, p_pending)
  ON CONFLICT (collection_id, window_start) DO UPDATE SET calls = a.calls + EXCLUDED.calls
  RETURNING a.calls INTO total;
  taken := total < p_max;
  IF taken THEN
    UPDATE api_calls AS a SET calls = a.calls + 1
    WHERE a.collection_id = p_collection AND a.window_start = p_window
    RETURNING a.calls INTO total;
  END IF;
END
$fn$;

-- Takes one document slot of a collection (document_count + 1 while below max_documents) or
-- fails with SQLSTATE SF001 when the collection is full. The add transaction sends it together
-- with its COMMIT in one round trip ("SELECT take_document_slot('id'); COMMIT"), so the row
-- lock that serialises parallel adds of one collection is held only for the UPDATE and the
-- commit itself, never across a round trip to the service.
CREATE FUNCTION take_document_slot(p_collection text) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  UPDATE collections SET document_count = document_count + 1
  WHERE id = p_collection AND document_count < max_documents;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'collection % is full', p_collection USING ERRCODE = 'SF001';
  END IF;
END
$fn$;

-- Down Migration
DROP FUNCTION take_document_slot(text);
DROP FUNCTION take_api_call(text, bigint, bigint, bigint);
DROP TABLE api_calls;
DROP TABLE collections;
