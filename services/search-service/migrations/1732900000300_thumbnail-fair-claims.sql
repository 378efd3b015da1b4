-- Up Migration
-- Fair thumbnail claims: one collection's jobs (e.g. thousands of originals on a host that never
-- answers) must not hold up another collection's thumbnails. A claim serves the collections
-- with due jobs in turn, the one served least recently first, and never lets a collection hold
-- more than a few jobs at once across all instances (jobs.ts claimJobs).
--   claimed_at:   when a worker last took the job; a collection's newest one is when it was
--                 last served
--   leased_until: while a worker holds the job, the end of its lease (the job is "in flight");
--                 cleared when the job waits for a retry
ALTER TABLE thumbnail_jobs ADD COLUMN claimed_at timestamptz, ADD COLUMN leased_until timestamptz;
-- the collections with pending jobs (a skip scan), each one's due jobs and its jobs in flight
CREATE INDEX thumbnail_jobs_collection_due_idx ON thumbnail_jobs (collection_id, next_attempt_at, id)
  WHERE done_at IS NULL;
CREATE INDEX thumbnail_jobs_collection_leased_idx ON thumbnail_jobs (collection_id, leased_until)
  WHERE done_at IS NULL AND leased_until IS NOT NULL;
-- when each collection was last served
CREATE INDEX thumbnail_jobs_collection_claimed_idx ON thumbnail_jobs (collection_id, claimed_at)
  WHERE claimed_at IS NOT NULL;

-- Down Migration
DROP INDEX thumbnail_jobs_collection_claimed_idx;
DROP INDEX thumbnail_jobs_collection_leased_idx;
DROP INDEX thumbnail_jobs_collection_due_idx;
ALTER TABLE thumbnail_jobs DROP COLUMN leased_until, DROP COLUMN claimed_at;
