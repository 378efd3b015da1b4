-- Up Migration
-- Thumbnails of contents_image. Work queue: one job per image change, inserted in the write
-- transaction and done by a worker (SKIP LOCKED claim with a lease). Result: the resized image
-- itself, in Postgres (bytea), so every instance serves every thumbnail without shared disks.
-- Stand-alone on purpose: no foreign key to documents (doc_id is documents.id, loosely).
CREATE TABLE thumbnail_jobs (
  id bigserial PRIMARY KEY,
  collection_id text NOT NULL,
  doc_id bigint NOT NULL,
  version bigint NOT NULL,
  image_url text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  -- due time; while a worker holds the job, the end of its lease
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  done_at timestamptz,
  -- stored | failed | superseded | dropped
  outcome text
);
CREATE INDEX thumbnail_jobs_pending_idx ON thumbnail_jobs (next_attempt_at, id) WHERE done_at IS NULL;
CREATE INDEX thumbnail_jobs_doc_idx ON thumbnail_jobs (collection_id, doc_id, id);
CREATE INDEX thumbnail_jobs_done_idx ON thumbnail_jobs (done_at) WHERE done_at IS NOT NULL;

CREATE TABLE thumbnails (
  collection_id text NOT NULL,
  doc_id bigint NOT NULL,
  version bigint NOT NULL,
  source_url text NOT NULL,
  -- e.g. 130X130: the box the image was fitted into
  size text NOT NULL,
  -- base64url(sha256(size, image bytes)): changes whenever the image changes
  thumbnail_key text NOT NULL,
  content_type text NOT NULL,
  width integer NOT NULL,
  height integer NOT NULL,
  source_width integer NOT NULL,
  source_height integer NOT NULL,
  image bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (collection_id, doc_id)
);
-- JPEG/PNG bytes do not compress: keep them out of line without trying
ALTER TABLE thumbnails ALTER COLUMN image SET STORAGE EXTERNAL;
CREATE INDEX thumbnails_key_idx ON thumbnails (collection_id, thumbnail_key);

-- Down Migration
DROP TABLE thumbnails;
DROP TABLE thumbnail_jobs;
