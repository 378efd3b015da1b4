-- Up Migration
-- Transactional outbox of the Meilisearch engine: one row per committed document change,
-- inserted in the write transaction; the relay (src/index/meilisearch/outbox/relay.ts) sends
-- them in batches.
-- Stand-alone on purpose: no foreign key to documents (doc_id is documents.id, loosely).
CREATE TABLE search_outbox (
  id bigserial PRIMARY KEY,
  op text NOT NULL CHECK (op IN ('upsert', 'delete', 'drop')),
  collection_id text NOT NULL,
  -- Meilisearch document id (collection + sha256 of dockey); the collection id for 'drop'
  meili_id text NOT NULL,
  dockey text,
  doc_id bigint NOT NULL DEFAULT 0,
  version bigint NOT NULL DEFAULT 0,
  -- the Meilisearch document for 'upsert', null otherwise
  payload jsonb,
  -- reindex rows: applied even when the same version was applied before
  force boolean NOT NULL DEFAULT false,
  -- Meilisearch rejected the batch this row was in: send it alone next time
  isolate boolean NOT NULL DEFAULT false,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  done_at timestamptz
);
CREATE INDEX search_outbox_pending_idx ON search_outbox (id) WHERE done_at IS NULL;
CREATE INDEX search_outbox_pending_meili_idx ON search_outbox (meili_id) WHERE done_at IS NULL;
CREATE INDEX search_outbox_pending_collection_idx ON search_outbox (collection_id, id) WHERE done_at IS NULL;
CREATE INDEX search_outbox_done_idx ON search_outbox (done_at) WHERE done_at IS NOT NULL;

-- The newest (doc_id, version) of each Meilisearch document that Meilisearch has confirmed:
-- an older change is never sent after a newer one was applied.
CREATE TABLE search_applied_versions (
  meili_id text PRIMARY KEY,
  collection_id text NOT NULL,
  doc_id bigint NOT NULL,
  version bigint NOT NULL,
  deleted boolean NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX search_applied_versions_collection_idx ON search_applied_versions (collection_id);

-- Down Migration
DROP TABLE search_applied_versions;
DROP TABLE search_outbox;
