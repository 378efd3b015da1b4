-- Up Migration
-- The outbox relay claims rows with a lease and commits before it calls Meilisearch (no
-- transaction stays open during the call), counts the rejections of a change sent on its own,
-- and moves a change that Meilisearch keeps rejecting to search_outbox_dead_letters.
ALTER TABLE search_outbox
  -- times Meilisearch rejected this change when it was sent alone
  ADD COLUMN rejections integer NOT NULL DEFAULT 0,
  -- the relay batch that holds the row until claimed_until (a dead relay's rows come back then)
  ADD COLUMN claimed_by text,
  ADD COLUMN claimed_until timestamptz;
CREATE INDEX search_outbox_claimed_idx ON search_outbox (collection_id) WHERE claimed_until IS NOT NULL;

-- Changes that Meilisearch rejected too often; listed and re-queued by the admin API.
CREATE TABLE search_outbox_dead_letters (
  id bigserial PRIMARY KEY,
  outbox_id bigint NOT NULL,
  op text NOT NULL CHECK (op IN ('upsert', 'delete')),
  collection_id text NOT NULL,
  meili_id text NOT NULL,
  dockey text,
  doc_id bigint NOT NULL,
  version bigint NOT NULL,
  payload jsonb,
  force boolean NOT NULL DEFAULT false,
  attempts integer NOT NULL,
  last_error text,
  -- when the change was committed (search_outbox.created_at)
  created_at timestamptz NOT NULL,
  dead_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX search_outbox_dead_letters_collection_idx ON search_outbox_dead_letters (collection_id, id);
CREATE INDEX search_outbox_dead_letters_meili_idx ON search_outbox_dead_letters (meili_id);

-- Down Migration
DROP TABLE search_outbox_dead_letters;
DROP INDEX search_outbox_claimed_idx;
ALTER TABLE search_outbox DROP COLUMN claimed_until, DROP COLUMN claimed_by, DROP COLUMN rejections;
