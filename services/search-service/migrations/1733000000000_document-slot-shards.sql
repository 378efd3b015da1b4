-- Up Migration
-- Document slots in shards (issue 23). Every add took its slot by updating its collection's
-- row, and held that row lock until its COMMIT had been flushed: the adds of one collection
-- committed one at a time, however many ran in parallel (at 16 clients an add spent 10 of its
-- 10.4 ms in PostgreSQL waiting for that row). The free slots of a collection now sit in
-- 16 rows (shards): an add takes one from a shard that no other add holds (its connection's
-- own first), so parallel adds no longer wait for each other, and the count stays exact:
--
--   documents of the collection = max_documents - sum(free) of its shards, always.
--
-- A shard may be empty while others are not; a total below zero (a lowered maximum) sits on
-- shard 0, and no shard has room while one is below zero. An add that finds no shard with room
-- locks every shard (which waits for the adds that have taken a slot and not yet committed) and
-- spreads what is free over the shards again, or finds the collection full.
-- Lock order: every function here first takes a key share of the collection row, then slot
-- shards (an add's document insert holds that key share too, but its foreign key check runs
-- only at the end of the add's statement). Deleting the collection takes the row first and
-- waits for every such transaction; a slot taken before the key share deadlocked with it.
-- Only this file writes the rule; the service calls these functions.
CREATE TABLE collection_slots (
  collection_id text NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
  shard smallint NOT NULL,
  free integer NOT NULL,
  PRIMARY KEY (collection_id, shard)
);

-- Sets the shards of a collection so that their free slots add up to p_free: an equal part
-- each, the remainder one by one from shard 0; a total below zero stays on shard 0.
CREATE FUNCTION spread_document_slots(p_collection text, p_free bigint) RETURNS void
LANGUAGE sql AS $fn$
  INSERT INTO collection_slots AS s (collection_id, shard, free)
  SELECT p_collection, n,
         CASE WHEN p_free < 0 THEN CASE WHEN n = 0 THEN p_free ELSE 0 END
              ELSE p_free / 16 + CASE WHEN n < p_free % 16 THEN 1 ELSE 0 END END
  FROM generate_series(0, 15) AS n
  ON CONFLICT (collection_id, shard) DO UPDATE SET free = EXCLUDED.free;
$fn$;

-- The number of documents of a collection (null when there is no such collection): exact for
-- what has committed; a transaction that holds lock_document_slots sees every add.
CREATE FUNCTION collection_document_count(p_collection text) RETURNS integer
LANGUAGE sql STABLE AS $fn$
  SELECT (c.max_documents - coalesce((SELECT sum(s.free) FROM collection_slots s
                                      WHERE s.collection_id = c.id), 0))::integer
  FROM collections c WHERE c.id = p_collection;
$fn$;

-- Locks every shard of the collection until the transaction ends, in shard order (which waits
-- for the adds that took a slot and have not committed, and holds off new ones) and returns the
-- exact count and maximum; no row when there is no such collection. A changed maximum moves
-- shard 0 (the trigger below), so it waits here too. The collection row itself is not locked:
-- the adds hold a key share of it (their documents' foreign key), and a stronger lock taken
-- after theirs deadlocked.
CREATE FUNCTION lock_document_slots(
  p_collection text,
  OUT document_count integer,
  OUT max_documents integer
) RETURNS SETOF record
LANGUAGE plpgsql AS $fn$
DECLARE
  v_free bigint;
  v_shards integer;
BEGIN
  PERFORM 1 FROM collections c WHERE c.id = p_collection FOR KEY SHARE;
  IF NOT FOUND THEN RETURN; END IF;
  SELECT coalesce(sum(l.free), 0), count(*) INTO v_free, v_shards FROM (
    SELECT s.free FROM collection_slots s WHERE s.collection_id = p_collection
    ORDER BY s.shard FOR UPDATE) l;
  IF v_shards = 0 THEN RETURN; END IF;
  SELECT c.max_documents INTO max_documents FROM collections c WHERE c.id = p_collection;
  IF NOT FOUND THEN RETURN; END IF;
  document_count := max_documents - v_free;
  RETURN NEXT;
END
$fn$;

-- The free total of the collection (max_documents - documents) under lock_document_slots' locks;
-- null when there is no such collection.
CREATE FUNCTION locked_free_slots(p_collection text) RETURNS bigint
LANGUAGE sql AS $fn$
  SELECT (l.max_documents - l.document_count)::bigint FROM lock_document_slots(p_collection) l;
$fn$;

-- Takes one document slot: true, or false when the collection is full (then the caller holds
-- lock_document_slots' locks). A collection that is gone fails with foreign_key_violation.
-- Each fast way runs in a block of its own (a subtransaction): a row locked and then found
-- empty (an UPDATE that waited for it, or SKIP LOCKED's recheck) stays locked, and a
-- transaction that went on to wait for another shard while holding it deadlocked with one
-- locking every shard in order; leaving the block undoes that lock.
CREATE FUNCTION try_take_document_slot(p_collection text) RETURNS boolean
LANGUAGE plpgsql AS $fn$
DECLARE
  v_free bigint;
BEGIN
  PERFORM 1 FROM collections WHERE id = p_collection FOR KEY SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'collection % does not exist', p_collection USING ERRCODE = 'foreign_key_violation';
  END IF;
  BEGIN
    -- any shard with room that no other add holds, this connection's own first
    UPDATE collection_slots SET free = free - 1
    WHERE collection_id = p_collection AND shard = (
      SELECT s.shard FROM collection_slots s WHERE s.collection_id = p_collection AND s.free > 0
      ORDER BY (s.shard - pg_backend_pid() % 16 + 16) % 16 LIMIT 1 FOR UPDATE SKIP LOCKED);
    IF FOUND THEN RETURN true; END IF;
    RAISE EXCEPTION 'no free shard' USING ERRCODE = 'SF002';
  EXCEPTION WHEN SQLSTATE 'SF002' THEN
    NULL;
  END;
  BEGIN
    -- every shard with room is held: wait for this connection's own
    UPDATE collection_slots SET free = free - 1
    WHERE collection_id = p_collection AND shard = pg_backend_pid() % 16 AND free > 0;
    IF FOUND THEN RETURN true; END IF;
    RAISE EXCEPTION 'shard empty' USING ERRCODE = 'SF002';
  EXCEPTION WHEN SQLSTATE 'SF002' THEN
    NULL;
  END;
  v_free := locked_free_slots(p_collection);
  IF v_free IS NULL THEN
    RAISE EXCEPTION 'collection % does not exist', p_collection USING ERRCODE = 'foreign_key_violation';
  END IF;
  IF v_free <= 0 THEN RETURN false; END IF;
  PERFORM spread_document_slots(p_collection, v_free - 1);
  RETURN true;
END
$fn$;

-- As before: one slot, or SQLSTATE SF001 when the collection is full.
CREATE OR REPLACE FUNCTION take_document_slot(p_collection text) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  IF NOT try_take_document_slot(p_collection) THEN
    RAISE EXCEPTION 'collection % is full', p_collection USING ERRCODE = 'SF001';
  END IF;
END
$fn$;

-- Gives p_count slots back (documents deleted; below zero: documents counted in); false when
-- the collection is gone. The rule it keeps: no shard has free slots while another is below
-- zero, so a slot taken from a shard with room is always one the collection has. Slots given
-- back go to this connection's shard when no shard is below zero; otherwise, and for a count
-- below zero, every shard is locked and the free total spread again. A delete calls it before
-- it deletes: the lock order of a forced add (slots, then documents).
CREATE FUNCTION release_document_slots(p_collection text, p_count integer) RETURNS boolean
LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM 1 FROM collections WHERE id = p_collection FOR KEY SHARE;
  IF NOT FOUND THEN RETURN false; END IF;
  IF p_count >= 0 THEN
    BEGIN
      PERFORM 1 FROM collection_slots
      WHERE collection_id = p_collection AND shard = pg_backend_pid() % 16 FOR UPDATE;
      IF NOT EXISTS (SELECT 1 FROM collection_slots
                     WHERE collection_id = p_collection AND free < 0) THEN
        UPDATE collection_slots SET free = free + p_count
        WHERE collection_id = p_collection AND shard = pg_backend_pid() % 16;
        RETURN true;
      END IF;
      RAISE EXCEPTION 'a shard is below zero' USING ERRCODE = 'SF002';
    EXCEPTION WHEN SQLSTATE 'SF002' THEN
      NULL; -- leaving the block lets go of this shard before every shard is locked in order
    END;
  END IF;
  PERFORM spread_document_slots(p_collection, locked_free_slots(p_collection) + p_count);
  RETURN true;
END
$fn$;

-- A new collection's shards; a changed maximum moves the free total by the change, spread
-- again under every shard's lock (so no shard keeps room that a lowered maximum took).
CREATE FUNCTION collection_slots_follow() RETURNS trigger
LANGUAGE plpgsql AS $fn$
DECLARE
  v_free bigint;
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM spread_document_slots(NEW.id, NEW.max_documents);
  ELSIF NEW.max_documents <> OLD.max_documents THEN
    SELECT coalesce(sum(l.free), 0) INTO v_free FROM (
      SELECT s.free FROM collection_slots s WHERE s.collection_id = NEW.id
      ORDER BY s.shard FOR UPDATE) l;
    PERFORM spread_document_slots(NEW.id, v_free + NEW.max_documents - OLD.max_documents);
  END IF;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER collection_slots_follow AFTER INSERT OR UPDATE OF max_documents ON collections
  FOR EACH ROW EXECUTE FUNCTION collection_slots_follow();

SELECT spread_document_slots(id, max_documents - document_count) FROM collections;
ALTER TABLE collections DROP COLUMN document_count;

-- Down Migration
ALTER TABLE collections ADD COLUMN document_count integer NOT NULL DEFAULT 0
  CHECK (document_count >= 0);
UPDATE collections SET document_count = collection_document_count(id);
DROP TRIGGER collection_slots_follow ON collections;
DROP FUNCTION collection_slots_follow();
DROP FUNCTION release_document_slots(text, integer);
CREATE OR REPLACE FUNCTION take_document_slot(p_collection text) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  UPDATE collections SET document_count = document_count + 1
  WHERE id = p_collection AND document_count < max_documents;
  IF NOT FOUND THEN
    IF NOT EXISTS (SELECT 1 FROM collections WHERE id = p_collection) THEN
      RAISE EXCEPTION 'collection % does not exist', p_collection USING ERRCODE = 'foreign_key_violation';
    END IF;
    RAISE EXCEPTION 'collection % is full', p_collection USING ERRCODE = 'SF001';
  END IF;
END
$fn$;
DROP FUNCTION try_take_document_slot(text);
DROP FUNCTION locked_free_slots(text);
DROP FUNCTION lock_document_slots(text);
DROP FUNCTION collection_document_count(text);
DROP FUNCTION spread_document_slots(text, bigint);
DROP TABLE collection_slots;
