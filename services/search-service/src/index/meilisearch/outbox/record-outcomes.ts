import type pg from 'pg';
import { IndexWriteError } from '../gateway';
import { backoffMs, errorText } from '@hub/service-kit';
import type { OutboxRow, PlannedChange } from './coalesce';
import { forgetSupersededDeadLetters, moveToDeadLetters } from './dead-letters';

/**
 * Step 3 of a relay batch, in one short transaction after Meilisearch answered: record what
 * happened to each claimed change and release the claim. Only rows still claimed by this batch
 * are touched (a batch whose lease ran out leaves its rows to the relay that took them over).
 */

export interface SentGroup {
  changes: PlannedChange[];
  /** undefined: Meilisearch applied it */
  error?: unknown;
}

export interface RecordOptions {
  baseBackoffMs: number;
  maxBackoffMs: number;
  /** a change rejected this many times when sent alone goes to the dead letters */
  maxRejections: number;
}

export interface Recorded {
  done: number;
  failed: number;
  deadLettered: number;
  /** seconds from commit to confirmation, one per row settled */
  visibility: number[];
  failures: Array<{ kind: 'transient' | 'rejected'; error: string; rows: OutboxRow[] }>;
}

export async function recordOutcomes(
  tx: pg.PoolClient,
  token: string,
  groups: SentGroup[],
  opts: RecordOptions,
): Promise<Recorded> {
  const out: Recorded = { done: 0, failed: 0, deadLettered: 0, visibility: [], failures: [] };
  for (const group of groups) {
    const rows = group.changes.flatMap((c) => c.rows);
    if (group.error === undefined) {
      await recordApplied(tx, group.changes);
      const seconds = await markDone(
        tx,
        token,
        rows.map((r) => r.id),
      );
      out.done += seconds.length;
      out.visibility.push(...seconds);
      continue;
    }
    const kind = group.error instanceof IndexWriteError ? group.error.kind : 'transient';
    const error = errorText(group.error);
    // a rejection of a batch: its changes are sent one by one from now on; a rejection of one
    // change alone counts towards the dead letters
    const alone = group.changes.length === 1;
    const rejections = await markFailed(tx, token, rows, error, {
      isolate: kind === 'rejected' && !alone,
      rejected: kind === 'rejected' && alone,
      ...opts,
    });
    out.failed += rows.length;
    out.failures.push({ kind, error, rows });
    if (kind === 'rejected' && alone && rejections >= opts.maxRejections) {
      out.deadLettered += await deadLetter(tx, group.changes[0]!, error);
    }
  }
  await releaseClaim(tx, token);
  return out;
}

/**
 * The purge of a dropped collection: done, and its applied versions go with its documents; or
 * the attempt is counted (a drop is never dead-lettered: the collection has to go).
 */
export async function recordDrop(
  tx: pg.PoolClient,
  token: string,
  row: OutboxRow,
  error: unknown,
  opts: RecordOptions,
): Promise<Recorded> {
  const change: PlannedChange = { meiliId: row.meiliId, winner: row, rows: [row] };
  if (error !== undefined)
    return recordOutcomes(tx, token, [{ changes: [change], error }], {
      ...opts,
      maxRejections: Number.POSITIVE_INFINITY,
    });
  await tx.query(`DELETE FROM search_applied_versions WHERE collection_id = $1`, [
    row.collectionId,
  ]);
  const seconds = await markDone(tx, token, [row.id]);
  await releaseClaim(tx, token);
  return { done: seconds.length, failed: 0, deadLettered: 0, visibility: seconds, failures: [] };
}

async function releaseClaim(tx: pg.PoolClient, token: string): Promise<void> {
  await tx.query(
    `UPDATE search_outbox SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = $1`,
    [token],
  );
}

/** The newest version Meilisearch confirmed, per document (never lowered). */
export async function recordApplied(tx: pg.PoolClient, changes: PlannedChange[]): Promise<void> {
  if (changes.length === 0) return;
  await tx.query(
    `INSERT INTO search_applied_versions AS a (meili_id, collection_id, doc_id, version, deleted, applied_at)
     SELECT m, c, d, v, del, clock_timestamp()
       FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bool[]) AS u(m, c, d, v, del)
     ON CONFLICT (meili_id) DO UPDATE
        SET collection_id = excluded.collection_id, doc_id = excluded.doc_id, version = excluded.version,
            deleted = excluded.deleted, applied_at = excluded.applied_at
      WHERE (a.doc_id, a.version, a.deleted) <= (excluded.doc_id, excluded.version, excluded.deleted)`,
    [
      changes.map((c) => c.meiliId),
      changes.map((c) => c.winner.collectionId),
      changes.map((c) => c.winner.docId),
      changes.map((c) => c.winner.version),
      changes.map((c) => c.winner.op === 'delete'),
    ],
  );
  await forgetSupersededDeadLetters(
    tx,
    changes.map((c) => c.meiliId),
  );
}

/** Marks this batch's rows done; answers the commit-to-confirmation seconds of each. */
export async function markDone(tx: pg.PoolClient, token: string, ids: string[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const r = await tx.query<{ seconds: number }>(
    `UPDATE search_outbox SET done_at = clock_timestamp(), last_error = NULL
      WHERE id = ANY($1::bigint[]) AND claimed_by = $2 AND done_at IS NULL
      RETURNING extract(epoch FROM clock_timestamp() - created_at)::float8 AS seconds`,
    [ids, token],
  );
  return r.rows.map((row) => row.seconds);
}

/** Counts the attempt, sets the next one with backoff; answers the most rejections of a row. */
async function markFailed(
  tx: pg.PoolClient,
  token: string,
  rows: OutboxRow[],
  error: string,
  o: RecordOptions & { isolate: boolean; rejected: boolean },
): Promise<number> {
  const r = await tx.query<{ rejections: number }>(
    `UPDATE search_outbox o
        SET attempts = o.attempts + 1,
            rejections = o.rejections + $4::int,
            next_attempt_at = clock_timestamp() + make_interval(secs => f.delay / 1000.0),
            last_error = $3,
            isolate = o.isolate OR $5
       FROM unnest($1::bigint[], $2::int[]) AS f(id, delay)
      WHERE o.id = f.id AND o.claimed_by = $6 AND o.done_at IS NULL
      RETURNING o.rejections`,
    [
      rows.map((row) => row.id),
      rows.map((row) => backoffMs(row.attempts + 1, o.baseBackoffMs, o.maxBackoffMs)),
      error,
      o.rejected ? 1 : 0,
      o.isolate,
      token,
    ],
  );
  return Math.max(0, ...r.rows.map((row) => row.rejections));
}

/**
 * The change goes to the dead letters; the older rows of its document that it settled are
 * done (superseded by it).
 */
async function deadLetter(tx: pg.PoolClient, change: PlannedChange, error: string) {
  const moved = await moveToDeadLetters(tx, [change.winner.id], error);
  const older = change.rows.filter((r) => r.id !== change.winner.id).map((r) => r.id);
  if (older.length > 0) {
    await tx.query(
      `UPDATE search_outbox SET done_at = clock_timestamp(), last_error = 'superseded by a dead letter'
        WHERE id = ANY($1::bigint[]) AND done_at IS NULL`,
      [older],
    );
  }
  return moved;
}
