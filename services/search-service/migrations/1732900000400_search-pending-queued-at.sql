-- Up Migration
-- When each pending document was queued (its change's transaction time), so that fold lag can
-- be told in seconds (search_fold_lag_seconds: the age of the oldest pending document), also
-- while no folder runs. A constant default: no table rewrite; rows already pending get the
-- time of this migration. The writers name their columns and leave this one to its default.
ALTER TABLE search_pending ADD COLUMN queued_at timestamptz NOT NULL DEFAULT now();

-- Down Migration
ALTER TABLE search_pending DROP COLUMN queued_at;
