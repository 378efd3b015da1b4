import type pg from 'pg';
import type { Logger, Metrics } from '@hub/service-kit';
import type { AddedDocument, DocumentChange } from '../index/search-index';
import { backoffMs } from '../outbox/coalesce';
import { createWakeup, listenChannel, type ChannelListener } from '../outbox/notify';
import { fetchImage, ImageFetchError } from './fetch-image';
import {
  DEFAULT_THUMBNAIL_SIZE,
  formatThumbnailSize,
  makeThumbnail,
  parseThumbnailBox,
  type ThumbnailBox,
} from './resize';
import type { ThumbnailRow, ThumbnailService } from './thumbnail-service';

export const THUMBNAIL_CHANNEL = 'thumbnail_jobs';

export interface ThumbnailServiceOptions {
  pool: pg.Pool;
  /** THUMBNAIL_URL: public base of the thumbnail router, e.g. https://search.example.com/thumbnails */
  thumbnailUrl: string;
  logger: Logger;
  /** THUMBNAIL_ALLOW_PRIVATE_NETWORKS: fetch originals from private/loopback addresses too */
  allowPrivateNetworks: boolean;
  metrics?: Metrics;
  /** whole fetch of one original, redirects included (default 10000 ms) */
  fetchTimeoutMs?: number;
  /** largest original in bytes (default 10 MB) */
  maxBytes?: number;
  /** redirects followed, each re-checked (default 3) */
  maxRedirects?: number;
  /** largest original in decoded pixels (default 50 M, e.g. 7000 × 7000) */
  maxPixels?: number;
  /** attempts of a failing original before it is given up (default 4) */
  maxAttempts?: number;
  /** first retry delay (default 2000 ms), doubled per attempt up to 60 s */
  baseBackoffMs?: number;
  /** jobs processed at once per instance (default 2; resizing is CPU work) */
  concurrency?: number;
  /** poll fallback when no NOTIFY arrives (default 1000 ms) */
  pollIntervalMs?: number;
  /** an image given up is tried again on a later change of its doc after this long (default 1 h) */
  retryFailedAfterMs?: number;
  /** test seam: overrides the address check of every hop (default: see allowPrivateNetworks) */
  isAllowedAddress?: (address: string) => boolean;
}

export interface ThumbnailServiceImpl extends ThumbnailService {
  start(): void;
  stop(): Promise<void>;
  /** claims and processes up to `concurrency` due jobs; returns how many were claimed */
  runOnce(opts?: { ignoreBackoff?: boolean }): Promise<number>;
  /** processes jobs until none is pending (ignoring backoff), for tests and tools */
  drain(timeoutMs?: number): Promise<void>;
}

interface Job {
  id: string;
  collection_id: string;
  doc_id: string;
  version: string;
  image_url: string;
  attempts: number;
}

function text(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 2000);
}

/** `{thumbnail_url}/cse_<collection_id>/<size>/<thumbnail_key>` */
export function thumbnailLocation(
  thumbnailUrl: string,
  collectionId: string,
  size: string,
  key: string,
): string {
  return `${thumbnailUrl.replace(/\/+$/, '')}/cse_${collectionId}/${size}/${key}`;
}

/**
 * Thumbnails of contents_image: recordChange queues a job in the write transaction (the add
 * never waits for the image); a worker (SKIP LOCKED claim with a lease, several instances
 * safe) fetches the original safely, resizes it into the collection's box and stores it in the
 * `thumbnails` table; resultFields gives the archive_* fields; thumbnailRouter serves them.
 */
export function createThumbnailService(opts: ThumbnailServiceOptions): ThumbnailServiceImpl {
  const { pool, logger } = opts;
  const fetchTimeoutMs = opts.fetchTimeoutMs ?? 10_000;
  const maxAttempts = opts.maxAttempts ?? 4;
  const baseBackoff = opts.baseBackoffMs ?? 2000;
  const concurrency = opts.concurrency ?? 2;
  const pollIntervalMs = opts.pollIntervalMs ?? 1000;
  const retryFailedAfterMs = opts.retryFailedAfterMs ?? 3600_000;
  // a claimed job is the worker's until the lease ends; a dead worker's job comes back then
  const leaseMs = fetchTimeoutMs + 60_000;
  const wakeup = createWakeup();
  let running = false;
  let loops: Array<Promise<void>> = [];
  let listener: ChannelListener | null = null;
  let lastCleanup = 0;

  const outcomes = opts.metrics
    ? ((opts.metrics.registry.getSingleMetric('thumbnail_jobs_total') as InstanceType<
        typeof opts.metrics.client.Counter<'outcome'>
      >) ??
      new opts.metrics.client.Counter({
        name: 'thumbnail_jobs_total',
        help: 'Thumbnail jobs finished, by outcome (stored, failed, superseded, retry)',
        labelNames: ['outcome'],
        registers: [opts.metrics.registry],
      }))
    : null;

  async function recordChange(tx: pg.PoolClient, change: DocumentChange): Promise<void> {
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
    const s = state.rows[0]!;
    if (wanted !== null) {
      if (s.current === wanted) return; // same image, thumbnail made
      if (s.last_url === wanted && s.last_pending) return; // same image, already queued
      if (s.last_url === wanted && s.last_outcome === 'failed' && s.last_recent) return; // failed lately
    } else if (s.current === null && !s.last_pending) {
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

  async function dropCollection(tx: pg.PoolClient, collectionId: string): Promise<void> {
    await tx.query(
      `UPDATE thumbnail_jobs SET done_at = clock_timestamp(), outcome = 'dropped'
        WHERE collection_id = $1 AND done_at IS NULL`,
      [collectionId],
    );
    await tx.query(`DELETE FROM thumbnails WHERE collection_id = $1`, [collectionId]);
  }

  async function resultFields(collectionId: string, docIds: string[]) {
    const out = new Map<string, Record<string, string>>();
    if (docIds.length === 0) return out;
    const r = await pool.query<{
      doc_id: string;
      size: string;
      thumbnail_key: string;
      source_url: string;
      source_width: number;
      source_height: number;
    }>(
      `SELECT doc_id::text, size, thumbnail_key, source_url, source_width, source_height
         FROM thumbnails WHERE collection_id = $1 AND doc_id = ANY($2::bigint[])`,
      [collectionId, docIds],
    );
    for (const row of r.rows) {
      out.set(
        row.doc_id,
        archiveFields(collectionId, {
          size: row.size,
          thumbnailKey: row.thumbnail_key,
          sourceUrl: row.source_url,
          sourceWidth: row.source_width,
          sourceHeight: row.source_height,
        }),
      );
    }
    return out;
  }

  function archiveFields(collectionId: string, row: ThumbnailRow): Record<string, string> {
    const url = thumbnailLocation(opts.thumbnailUrl, collectionId, row.size, row.thumbnailKey);
    return {
      [`archive_thumbnail_${row.size}`]: url,
      archive_thumbnail: url,
      archive_image_size_list: `${row.sourceUrl} ${row.sourceWidth}X${row.sourceHeight}`,
    };
  }

  async function collectionBox(collectionId: string): Promise<ThumbnailBox> {
    try {
      const r = await pool.query<{ thumbnail_size: string | null }>(
        `SELECT thumbnail_size FROM collections WHERE id = $1`,
        [collectionId],
      );
      const box = parseThumbnailBox(r.rows[0]?.thumbnail_size);
      if (box) return box;
      if (r.rows[0])
        logger.warn(
          { collectionId, size: r.rows[0].thumbnail_size },
          'bad thumbnail_size; using default',
        );
    } catch (err) {
      logger.warn(
        { collectionId, err: text(err) },
        'collection thumbnail size unavailable; using default',
      );
    }
    return parseThumbnailBox(DEFAULT_THUMBNAIL_SIZE)!;
  }

  async function claim(n: number, ignoreBackoff: boolean): Promise<Job[]> {
    const due = ignoreBackoff ? 'true' : 'next_attempt_at <= clock_timestamp()';
    const r = await pool.query<Job>(
      `UPDATE thumbnail_jobs j
          SET attempts = j.attempts + 1,
              next_attempt_at = clock_timestamp() + make_interval(secs => $2::float8 / 1000)
        WHERE j.id IN (
          SELECT id FROM thumbnail_jobs
           WHERE done_at IS NULL AND ${due}
           ORDER BY id LIMIT $1
           FOR UPDATE SKIP LOCKED)
        RETURNING j.id::text, j.collection_id, j.doc_id::text, j.version::text, j.image_url, j.attempts`,
      [n, leaseMs],
    );
    return r.rows;
  }

  async function store(
    job: Job,
    size: string,
    thumb: Awaited<ReturnType<typeof makeThumbnail>>,
  ): Promise<boolean> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      // the row lock orders this with recordChange cancelling the job (the image changed)
      const still = await client.query(
        `SELECT 1 FROM thumbnail_jobs WHERE id = $1 AND done_at IS NULL FOR UPDATE`,
        [job.id],
      );
      if (still.rowCount === 0) {
        await client.query('ROLLBACK');
        return false;
      }
      await client.query(
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
      await client.query(
        `UPDATE thumbnail_jobs SET done_at = clock_timestamp(), outcome = 'stored', last_error = NULL WHERE id = $1`,
        [job.id],
      );
      await client.query('COMMIT');
      return true;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  async function fail(job: Job, err: unknown): Promise<void> {
    const permanent = err instanceof ImageFetchError && err.permanent;
    const giveUp = permanent || job.attempts >= maxAttempts;
    const log = {
      collectionId: job.collection_id,
      docId: job.doc_id,
      url: job.image_url,
      attempts: job.attempts,
    };
    if (giveUp) {
      await pool.query(
        `UPDATE thumbnail_jobs SET done_at = clock_timestamp(), outcome = 'failed', last_error = $2
          WHERE id = $1 AND done_at IS NULL`,
        [job.id, text(err)],
      );
      outcomes?.inc({ outcome: 'failed' });
      logger.warn(
        { ...log, err: text(err) },
        'thumbnail not made; original given up (document unaffected)',
      );
    } else {
      await pool.query(
        `UPDATE thumbnail_jobs SET next_attempt_at = clock_timestamp() + make_interval(secs => $2::float8 / 1000),
                last_error = $3
          WHERE id = $1 AND done_at IS NULL`,
        [job.id, backoffMs(job.attempts, baseBackoff, 60_000), text(err)],
      );
      outcomes?.inc({ outcome: 'retry' });
      logger.info({ ...log, err: text(err) }, 'thumbnail original failed; will retry');
    }
  }

  async function processJob(job: Job): Promise<void> {
    try {
      const box = await collectionBox(job.collection_id);
      const original = await fetchImage(job.image_url, {
        timeoutMs: fetchTimeoutMs,
        maxBytes: opts.maxBytes,
        maxRedirects: opts.maxRedirects,
        allowPrivateNetworks: opts.allowPrivateNetworks,
        isAllowedAddress: opts.isAllowedAddress,
      });
      const thumb = await makeThumbnail(original.body, box, opts.maxPixels);
      const stored = await store(job, formatThumbnailSize(box), thumb);
      outcomes?.inc({ outcome: stored ? 'stored' : 'superseded' });
    } catch (err) {
      await fail(job, err).catch((e) =>
        logger.error({ err: text(e) }, 'thumbnail job update failed'),
      );
    }
  }

  async function runOnce(o: { ignoreBackoff?: boolean } = {}): Promise<number> {
    const jobs = await claim(concurrency, o.ignoreBackoff ?? false);
    await Promise.all(jobs.map(processJob));
    return jobs.length;
  }

  async function cleanup(): Promise<void> {
    if (Date.now() - lastCleanup < 60_000) return;
    lastCleanup = Date.now();
    try {
      // done jobs are kept a week: the newest one of a doc stops refetching a failed image
      await pool.query(
        `DELETE FROM thumbnail_jobs WHERE id IN (
           SELECT id FROM thumbnail_jobs WHERE done_at < clock_timestamp() - interval '7 days' LIMIT 10000)`,
      );
    } catch (err) {
      logger.warn({ err: text(err) }, 'thumbnail job cleanup failed');
    }
  }

  /** one of `concurrency` loops: one job at a time, so a slow original holds up only its loop */
  async function loop(): Promise<void> {
    while (running) {
      let claimed = 0;
      try {
        const jobs = await claim(1, false);
        claimed = jobs.length;
        for (const job of jobs) await processJob(job);
      } catch (err) {
        logger.error({ err: text(err) }, 'thumbnail worker failed');
      }
      await cleanup();
      if (running && claimed === 0) await wakeup.wait(pollIntervalMs);
    }
  }

  return {
    recordChange,
    archiveFields,
    // a new document without an image has nothing to queue; one with an image takes recordChange
    addedDocumentSql: (added: AddedDocument) => (added.doc.image ? null : ''),
    dropCollection,
    resultFields,
    runOnce,
    start() {
      if (running) return;
      running = true;
      listener = listenChannel(pool, THUMBNAIL_CHANNEL, () => wakeup.wake(), logger);
      loops = Array.from({ length: concurrency }, () => loop());
    },
    async stop() {
      running = false;
      wakeup.wake();
      await Promise.all(loops);
      loops = [];
      await listener?.stop();
      listener = null;
    },
    async drain(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await runOnce({ ignoreBackoff: true });
        const r = await pool.query(`SELECT 1 FROM thumbnail_jobs WHERE done_at IS NULL LIMIT 1`);
        if (r.rowCount === 0) return;
        if (Date.now() > deadline) throw new Error('thumbnail jobs not drained in time');
      }
    },
  };
}
