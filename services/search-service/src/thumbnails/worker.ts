import type pg from 'pg';
import {
  asIs,
  backoffMs,
  counterOf,
  createWorkerLoop,
  drainWork,
  errorText,
  inTransaction,
  pooledConnection,
  type Logger,
  type Metrics,
} from '@hub/service-kit';
import { fetchImage, ImageFetchError } from './fetch-image';
import {
  anyJobPending,
  claimJobs,
  deleteOldJobs,
  giveUpJob,
  readThumbnailSize,
  retryJobLater,
  storeThumbnail,
  THUMBNAIL_CHANNEL,
  type Job,
} from './jobs';
import {
  DEFAULT_THUMBNAIL_SIZE,
  formatThumbnailSize,
  makeThumbnail,
  parseThumbnailBox,
  type ThumbnailBox,
} from './resize';

export interface ThumbnailWorkerOptions {
  pool: pg.Pool;
  logger: Logger;
  metrics?: Metrics;
  /** THUMBNAIL_ALLOW_PRIVATE_NETWORKS: fetch originals from private/loopback addresses too */
  allowPrivateNetworks: boolean;
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
  /**
   * jobs one collection may have in flight at once across all instances (default 1): keep it
   * below the loops of all instances together, so a collection whose originals never answer
   * always leaves a worker to the others
   */
  maxJobsPerCollection?: number;
  /** poll fallback when no NOTIFY arrives (default 1000 ms) */
  pollIntervalMs?: number;
  /** test seam: overrides the address check of every hop (default: see allowPrivateNetworks) */
  isAllowedAddress?: (address: string) => boolean;
}

export interface ThumbnailWorker {
  start(): void;
  stop(): Promise<void>;
  /** claims and processes up to `concurrency` due jobs; returns how many were claimed */
  runOnce(opts?: { ignoreBackoff?: boolean }): Promise<number>;
  /** processes jobs until none is pending (ignoring backoff), for tests and tools */
  drain(timeoutMs?: number): Promise<void>;
}

/**
 * The thumbnail worker: `concurrency` loops, each claiming one job at a time (so a slow
 * original holds up only its loop), fetching the original safely, resizing it into the
 * collection's box and storing it; a failure is retried with backoff, then given up (the
 * document is unaffected). Claims are fair (claimJobs): collections take turns and one holds
 * at most `maxJobsPerCollection` jobs at once, so its slow originals never take every loop.
 */
export function createThumbnailWorker(opts: ThumbnailWorkerOptions): ThumbnailWorker {
  const {
    pool,
    logger,
    fetchTimeoutMs = 10_000,
    maxAttempts = 4,
    baseBackoffMs = 2000,
    concurrency = 2,
    maxJobsPerCollection = 1,
  } = opts;
  // a claimed job is the worker's until the lease ends; a dead worker's job comes back then
  const leaseMs = fetchTimeoutMs + 60_000;
  const outcomes = opts.metrics
    ? counterOf(opts.metrics, {
        name: 'thumbnail_jobs_total',
        help: 'Thumbnail jobs finished, by outcome (stored, failed, superseded, retry)',
        labelNames: ['outcome'],
      })
    : null;

  async function collectionBox(collectionId: string): Promise<ThumbnailBox> {
    try {
      const size = await readThumbnailSize(pool, collectionId);
      const box = parseThumbnailBox(size);
      if (box) return box;
      if (size !== undefined)
        logger.warn({ collectionId, size }, 'bad thumbnail_size; using default');
    } catch (err) {
      logger.warn(
        { collectionId, err: errorText(err) },
        'collection thumbnail size unavailable; using default',
      );
    }
    return parseThumbnailBox(DEFAULT_THUMBNAIL_SIZE)!;
  }

  async function fail(job: Job, err: unknown): Promise<void> {
    const permanent = err instanceof ImageFetchError && err.permanent;
    const log = {
      collectionId: job.collection_id,
      docId: job.doc_id,
      url: job.image_url,
      attempts: job.attempts,
      err: errorText(err),
    };
    if (permanent || job.attempts >= maxAttempts) {
      await giveUpJob(pool, job, errorText(err));
      outcomes?.inc({ outcome: 'failed' });
      logger.warn(log, 'thumbnail not made; original given up (document unaffected)');
    } else {
      await retryJobLater(
        pool,
        job,
        backoffMs(job.attempts, baseBackoffMs, 60_000),
        errorText(err),
      );
      outcomes?.inc({ outcome: 'retry' });
      logger.info(log, 'thumbnail original failed; will retry');
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
      const stored = await inTransaction(pool, asIs, (tx) =>
        storeThumbnail(tx, job, formatThumbnailSize(box), thumb),
      );
      outcomes?.inc({ outcome: stored ? 'stored' : 'superseded' });
    } catch (err) {
      await fail(job, err).catch((e) =>
        logger.error({ err: errorText(e) }, 'thumbnail job update failed'),
      );
    }
  }

  const claim = (n: number, ignoreBackoff: boolean) =>
    claimJobs(pool, { n, leaseMs, ignoreBackoff, perCollection: maxJobsPerCollection });

  async function runOnce(o: { ignoreBackoff?: boolean } = {}): Promise<number> {
    const jobs = await claim(concurrency, o.ignoreBackoff ?? false);
    await Promise.all(jobs.map(processJob));
    return jobs.length;
  }

  const loop = createWorkerLoop({
    async step() {
      const jobs = await claim(1, false);
      for (const job of jobs) await processJob(job);
      return jobs.length > 0;
    },
    loops: concurrency,
    pollIntervalMs: opts.pollIntervalMs ?? 1000,
    listen: { channel: THUMBNAIL_CHANNEL, open: pooledConnection(pool) },
    logger,
    failureMessage: 'thumbnail worker failed',
    housekeeping: {
      everyMs: 60_000,
      run: () => deleteOldJobs(pool),
      failureMessage: 'thumbnail job cleanup failed',
    },
  });

  return {
    start: () => loop.start(),
    stop: () => loop.stop(),
    runOnce,
    drain: (timeoutMs = 30_000) =>
      drainWork({
        step: async () => (await runOnce({ ignoreBackoff: true })) > 0,
        isEmpty: async () => !(await anyJobPending(pool)),
        timeoutMs,
        what: 'thumbnail jobs',
      }),
  };
}
