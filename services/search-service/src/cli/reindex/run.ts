import {
  ConfigError,
  ConfigReader,
  createLogger,
  createPool,
  errorText,
  type Logger,
} from '@hub/service-kit';
import { createMeilisearchIndex } from '../../index/meilisearch/meilisearch-index';
import { EXIT, parseReindexArgs, REINDEX_USAGE, UsageError, type ReindexArgs } from './args';
import { progressReporter } from './progress';
import { queueReindex } from './queue';
import { MeilisearchDownError, retryPolicy, withRetries } from './retries';
import { sendQueued } from './send-queued';

export interface ReindexCliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

export interface ReindexCliOptions {
  logger?: Logger;
  /** first wait between attempts (default 2 s; doubled per attempt up to 30 s) */
  retryDelayMs?: number;
  /** how long one attempt at sending the queued changes may take (default 60 s) */
  attemptTimeoutMs?: number;
  /** least time between two progress lines (default 2 s) */
  progressIntervalMs?: number;
  now?: () => number;
}

/** The reindex command: returns its exit status (EXIT). */
export async function runReindexCli(
  argv: string[],
  env: NodeJS.ProcessEnv,
  io: ReindexCliIo,
  opts: ReindexCliOptions = {},
): Promise<number> {
  let args: ReindexArgs;
  let databaseUrl: string;
  let meiliUrl: string;
  let meiliApiKey: string | undefined;
  try {
    args = parseReindexArgs(argv);
    if (args.help) {
      io.out(REINDEX_USAGE);
      return EXIT.ok;
    }
    const r = new ConfigReader(env);
    databaseUrl = r.postgresUrl('DATABASE_URL');
    meiliUrl = r.url('MEILI_URL', { protocols: ['http', 'https'] });
    meiliApiKey = r.optionalSecret('MEILI_API_KEY');
    r.done('search-service reindex');
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`reindex: ${err.message}`);
      io.err('run reindex --help for the usage');
      return EXIT.usage;
    }
    if (err instanceof ConfigError) {
      io.err(err.message);
      return EXIT.usage;
    }
    throw err;
  }
  const now = opts.now ?? Date.now;
  const intervalMs = opts.progressIntervalMs ?? 2000;
  const logger = opts.logger ?? createLogger('search-service-reindex', env.LOG_LEVEL ?? 'info');
  const pool = createPool(databaseUrl, 4);
  const engine = createMeilisearchIndex({
    pool,
    url: meiliUrl,
    apiKey: meiliApiKey,
    indexUid: env.MEILI_INDEX || undefined,
    logger,
    runRelay: false,
  });
  const policy = retryPolicy(args.retries, opts.retryDelayMs ?? 2000, (line) => io.err(line));
  let queuedAny = false;
  try {
    const reportQueued = progressReporter('queued', io.err, intervalMs, now);
    const stats = await queueReindex({
      pool,
      engine,
      logger,
      collectionId: args.collectionId,
      meili: withRetries(policy),
      onProgress: (done, total) => {
        queuedAny ||= done > 0;
        reportQueued(done, total);
      },
    });
    queuedAny = true;
    if (args.wait) {
      const sent = await sendQueued(engine, stats.queued + stats.deletes, {
        policy,
        attemptTimeoutMs: opts.attemptTimeoutMs ?? 60_000,
        report: progressReporter('sent', io.err, intervalMs, now),
        pollMs: Math.max(intervalMs, 100),
      });
      if (!sent.ok) {
        io.err(
          `reindex: Meilisearch did not take the queued changes after ${policy.attempts} attempts; ` +
            `${sent.pending} changes stay queued in the outbox (the service's relay sends them ` +
            'once Meilisearch is back, or run reindex again)',
        );
        return EXIT.meilisearchDown;
      }
    }
    io.out(JSON.stringify({ ...stats, waited: args.wait }));
    return EXIT.ok;
  } catch (err) {
    if (err instanceof MeilisearchDownError) {
      const pending = queuedAny ? (await engine.relay.pending()).count : 0;
      io.err(
        `reindex: ${err.message}; ${pending === 0 ? 'nothing was queued' : `${pending} changes stay queued in the outbox`}`,
      );
      return EXIT.meilisearchDown;
    }
    io.err(`reindex: ${errorText(err)}`);
    return EXIT.failed;
  } finally {
    await pool.end();
  }
}
