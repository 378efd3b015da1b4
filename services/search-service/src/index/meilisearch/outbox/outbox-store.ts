import type { Queryable } from '@hub/service-kit';

/**
 * The relay's reads and upkeep of search_outbox outside a batch: what is pending, and the
 * deletion of settled rows and tombstones once they can no longer matter.
 */

/** Rows not yet applied and the age of the oldest, for one collection or all. */
export async function pendingChanges(
  db: Queryable,
  collectionId?: string,
): Promise<{ count: number; oldestAgeSeconds: number | null }> {
  const r = await db.query<{ n: string; age: number | null }>(
    `SELECT count(*)::text AS n, extract(epoch FROM clock_timestamp() - min(created_at))::float8 AS age
       FROM search_outbox WHERE done_at IS NULL AND ($1::text IS NULL OR collection_id = $1)`,
    [collectionId ?? null],
  );
  const row = r.rows[0]!;
  return { count: Number(row.n), oldestAgeSeconds: row.age };
}

/**
 * Deletes done rows older than `retainDoneMs` (10,000 at a time), and the tombstones of
 * deleted documents once nothing older can still arrive (7 × retainDoneMs, and no pending row
 * of that document).
 */
export async function deleteSettledRows(db: Queryable, retainDoneMs: number): Promise<void> {
  await db.query(
    `DELETE FROM search_outbox WHERE id IN (
       SELECT id FROM search_outbox WHERE done_at < clock_timestamp() - make_interval(secs => $1::float8 / 1000)
       LIMIT 10000)`,
    [retainDoneMs],
  );
  await db.query(
    `DELETE FROM search_applied_versions a
      WHERE a.deleted AND a.applied_at < clock_timestamp() - make_interval(secs => $1::float8 / 1000)
        AND NOT EXISTS (SELECT 1 FROM search_outbox o WHERE o.done_at IS NULL AND o.meili_id = a.meili_id)`,
    [retainDoneMs * 7],
  );
}
