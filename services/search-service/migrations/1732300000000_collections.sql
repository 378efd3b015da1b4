-- Up Migration
CREATE TABLE collections (
  id text PRIMARY KEY,
  apikey_hash bytea NOT NULL,
  max_documents integer NOT NULL,
  max_api_calls integer NOT NULL,
  thumbnail_size text NOT NULL DEFAULT '130X130',
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE collections;
