import type pg from 'pg';
import { asIs, inTransaction, type Queryable } from '@hub/service-kit';
import type { DocumentChange } from '../index/search-index';
import type { makeThumbnail } from './resize';

/**
 * thumbnail_jobs and thumbnails in SQL: jobs queued in the write transaction of a document,
 * claimed by workers with a lease (SKIP LOCKED, so several instances are safe), and finished
 * as stored, superseded, retried or failed.
 */

export const THUMBNAIL_CHANNEL = 'thumbnail_jobs';

export interface Job {
  id: string;
  collection_id: string;
  doc_id: string;
  version: string;
  image_url: string;
  attempts: number;
}

export type Thumbnail = Awaited<ReturnType<typeof makeThumbnail>>;

/**
 * In the document's write transaction: queue the image of `change` unless its thumbnail is
 * made, queued, or failed lately (`retryFailedAfterMs`); a changed or removed image cancels
 * the queued work and drops the old thumbnail.
 */
export async function queueChange(
  tx: pg.PoolClient,
  change: DocumentChange,
  retryFailedAfterMs: number,
): Promise<void> {
  const wanted = change.op === 'upsert' ? (change.doc?.image ?? null) : null;
  // a document added just now (version 1 of a new id) has no thumbnail or job yet
  if (!wanted && change.op === 'upsert' && change.version === '1') return;
  const state = await tx.query<{
    current: string | null;
    last_url: string | null;
    last_pending: boolean | null;
    last_outcome: string | null;
    last_recent: boolean | null;
  }>(
    `SELECT (SELECT source_url FROM thumbnails WHERE collection_id = $1 AND doc_id = $2) AS current,
            j.image_url AS last_url, j.done_at IS NULL AS last_pending, j.outcome AS last_outcome,
            j.done_at > clock_timestamp() - make_interval(secs => $3::float8 / 1000) AS last_recent
       FROM (SELECT 1) one
       LEFT JOIN LATERAL (
         SELECT image_url, done_at, outcome FROM thumbnail_jobs
          WHERE collection_id = $1 AND doc_id = $2 ORDER BY id DESC LIMIT 1) j ON true`,
    [change.collectionId, change.docId, retryFailedAfterMs],
  );
  const last = state.rows[0]!;
  if (wanted !== null) {
    if (last.current === wanted) return; // same image, thumbnail made
    if (last.last_url === wanted && last.last_pending) return; // same image, already queued
    if (last.last_url === wanted && last.last_outcome === 'failed' && last.last_recent) return; // failed lately
  } else if (last.current === null && !last.last_pending) {
    return; // no image before, none now
  }
  // the image changed (or went): cancel queued work (waits for a worker storing right now),
  // drop the old thumbnail, queue the new image
  await tx.query(
    `UPDATE thumbnail_jobs SET done_at = clock_timestamp(), outcome = 'superseded'
      WHERE collection_id = $1 AND doc_id = $2 AND done_at IS NULL`,
    [change.collectionId, change.docId],
  );
  await tx.query(`DELETE FROM thumbnails WHERE collection_id = $1 AND doc_id = $2`, [
    change.collectionId,
    change.docId,
  ]);
  if (wanted === null) return;
  await tx.query(
    `WITH job AS (
       INSERT INTO thumbnail_jobs (collection_id, doc_id, version, image_url)
       VALUES ($1, $2::bigint, $3::bigint, $4) RETURNING id)
     SELECT pg_notify('${THUMBNAIL_CHANNEL}', '') FROM job`,
    [change.collectionId, change.docId, change.version, wanted],
  );
}

/**
 * In the collection's delete transaction, after its documents went (no job of it can be queued
 * any more): its jobs and thumbnails go. A worker storing one of them holds the job's row, so
 * this waits for it and then deletes what it stored; a worker that stores later finds no job.
 */
export async function dropCollectionJobs(tx: pg.PoolClient, collectionId: string): Promise<void> {
  await tx.query(`DELETE FROM thumbnail_jobs WHERE collection_id = $1`, [collectionId]);
  await tx.query(`DELETE FROM thumbnails WHERE collection_id = $1`, [collectionId]);
}

/** pg_advisory_xact_lock(class, 0): one claim at a time, across instances */
const CLAIM_LOCK = 0x7401;

export interface ClaimOptions {
  /** jobs claimed at most */
  n: number;
  leaseMs: number;
  /** any pending job counts as due (drain) */
  ignoreBackoff: boolean;
  /** jobs one collection may have in flight at once, across instances */
  perCollection: number;
}

/**
 * Up to `n` due jobs, each taken for `leaseMs`, claimed fairly: the collections with due jobs
 * take turns, the one served least recently (its newest claimed_at) first, and within a
 * collection the job due longest first; a collection never has more than `perCollection` jobs
 * in flight (leased_until in the future). Claims take turns on an advisory lock, so the count
 * of jobs in flight each one reads is exact across instances. Only the chosen jobs are locked
 * (SKIP LOCKED: a job a write is cancelling right now is left for a later claim).
 */
export function claimJobs(pool: pg.Pool, opts: ClaimOptions): Promise<Job[]> {
  const due = opts.ignoreBackoff ? 'true' : 'j.next_attempt_at <= clock_timestamp()';
  return inTransaction(pool, asIs, async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(${CLAIM_LOCK}, 0)`);
    const r = await tx.query<Job>(
      `WITH RECURSIVE pending AS (
         (SELECT collection_id FROM thumbnail_jobs WHERE done_at IS NULL ORDER BY collection_id LIMIT 1)
         UNION ALL
         SELECT (SELECT j.collection_id FROM thumbnail_jobs j
                  WHERE j.done_at IS NULL AND j.collection_id > p.collection_id
                  ORDER BY j.collection_id LIMIT 1)
           FROM pending p WHERE p.collection_id IS NOT NULL
       ), turns AS (
         SELECT p.collection_id,
                $3::int - (SELECT count(*) FROM thumbnail_jobs f
                            WHERE f.collection_id = p.collection_id AND f.done_at IS NULL
                              AND f.leased_until > clock_timestamp()) AS room,
                (SELECT max(s.claimed_at) FROM thumbnail_jobs s
                  WHERE s.collection_id = p.collection_id AND s.claimed_at IS NOT NULL) AS served_at
           FROM pending p WHERE p.collection_id IS NOT NULL
       ), picked AS (
         SELECT c.id, t.collection_id, t.served_at,
                row_number() OVER (PARTITION BY t.collection_id ORDER BY c.next_attempt_at, c.id) AS turn
           FROM turns t CROSS JOIN LATERAL (
             SELECT j.id, j.next_attempt_at FROM thumbnail_jobs j
              WHERE j.collection_id = t.collection_id AND j.done_at IS NULL AND ${due}
              ORDER BY j.next_attempt_at, j.id LIMIT least(t.room, $1)) c
          WHERE t.room > 0
       ), chosen AS (
         SELECT id FROM picked ORDER BY turn, served_at NULLS FIRST, collection_id LIMIT $1
       ), locked AS (
         SELECT j.id FROM thumbnail_jobs j
          WHERE j.id IN (SELECT id FROM chosen) AND j.done_at IS NULL AND ${due}
            FOR UPDATE SKIP LOCKED
       )
       UPDATE thumbnail_jobs j
          SET attempts = j.attempts + 1, claimed_at = clock_timestamp(),
              leased_until = clock_timestamp() + make_interval(secs => $2::float8 / 1000),
              next_attempt_at = clock_timestamp() + make_interval(secs => $2::float8 / 1000)
         FROM locked WHERE j.id = locked.id
       RETURNING j.id::text, j.collection_id, j.doc_id::text, j.version::text, j.image_url, j.attempts`,
      [opts.n, opts.leaseMs, opts.perCollection],
    );
    return r.rows;
  });
}

/**
 * In one transaction: store the thumbnail and finish the job as stored. False when the job
 * was cancelled meanwhile (the image changed): its row lock orders this with queueChange.
 */
export async function storeThumbnail(
  tx: pg.PoolClient,
  job: Job,
  size: string,
  thumb: Thumbnail,
): Promise<boolean> {
  const still = await tx.query(
    `SELECT 1 FROM thumbnail_jobs WHERE id = $1 AND done_at IS NULL FOR UPDATE`,
    [job.id],
  );
  if (still.rowCount === 0) return false;
  await tx.query(
    `INSERT INTO thumbnails AS t (collection_id, doc_id, version, source_url, size, thumbnail_key, content_type,
                                  width, height, source_width, source_height, image)
     VALUES ($1, $2::bigint, $3::bigint, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (collection_id, doc_id) DO UPDATE
        SET version = excluded.version, source_url = excluded.source_url, size = excluded.size,
            thumbnail_key = excluded.thumbnail_key, content_type = excluded.content_type,
            width = excluded.width, height = excluded.height, source_width = excluded.source_width,
            source_height = excluded.source_height, image = excluded.image, created_at = now()
      WHERE t.version <= excluded.version`,
    [
      job.collection_id,
      job.doc_id,
      job.version,
      job.image_url,
      size,
      thumb.key,
      thumb.contentType,
      thumb.width,
      thumb.height,
      thumb.sourceWidth,
      thumb.sourceHeight,
      thumb.data,
    ],
  );
  await tx.query(
    `UPDATE thumbnail_jobs SET done_at = clock_timestamp(), outcome = 'stored', last_error = NULL WHERE id = $1`,
    [job.id],
  );
  return true;
}

/** The job's original is given up: it ends as failed with its last error. */
export async function giveUpJob(db: Queryable, job: Job, error: string): Promise<void> {
  await db.query(
    `UPDATE thumbnail_jobs SET done_at = clock_timestamp(), outcome = 'failed', last_error = $2
      WHERE id = $1 AND done_at IS NULL`,
    [job.id, error],
  );
}

/** The job is tried again after `delayMs` (and is no longer in flight). */
export async function retryJobLater(
  db: Queryable,
  job: Job,
  delayMs: number,
  error: string,
): Promise<void> {
  await db.query(
    `UPDATE thumbnail_jobs SET next_attempt_at = clock_timestamp() + make_interval(secs => $2::float8 / 1000),
            leased_until = NULL, last_error = $3
      WHERE id = $1 AND done_at IS NULL`,
    [job.id, delayMs, error],
  );
}

/** Done jobs are kept a week: the newest one of a doc stops refetching a failed image. */
export async function deleteOldJobs(db: Queryable): Promise<void> {
  await db.query(
    `DELETE FROM thumbnail_jobs WHERE id IN (
       SELECT id FROM thumbnail_jobs WHERE done_at < clock_timestamp() - interval '7 days' LIMIT 10000)`,
  );
}

export async function anyJobPending(db: Queryable): Promise<boolean> {
  const r = await db.query(`SELECT 1 FROM thumbnail_jobs WHERE done_at IS NULL LIMIT 1`);
  return (r.rowCount ?? 0) > 0;
}

/** The collection's thumbnail_size as stored (null: none set, undefined: no such collection). */
export async function readThumbnailSize(
  db: Queryable,
  collectionId: string,
): Promise<string | null | undefined> {
  const r = await db.query<{ thumbnail_size: string | null }>(
    `SELECT thumbnail_size FROM collections WHERE id = $1`,
    [collectionId],
  );
  return r.rows[0] ? r.rows[0].thumbnail_size : undefined;
}
