/**
 * `pnpm reindex -- [--collection ID] [--no-wait] [--retries N]` (the root script; in a
 * container `node dist/cli/reindex.js …`): rebuilds the Meilisearch index from the documents
 * in Postgres. `--help` prints REINDEX_USAGE.
 *
 * It never writes to Meilisearch itself: it applies the index settings, then queues every
 * stored document (and a delete for every Meilisearch document that Postgres no longer has)
 * in the outbox as "forced" rows, so the relay's ordering rules still hold while the service
 * keeps writing (a reindex row never overwrites a newer change). Then it runs a relay until the
 * outbox is empty (a running service's relays help; --no-wait leaves the work to them).
 * Progress goes to stderr as done/total with a rate and an ETA; the totals to stdout as JSON.
 * While Meilisearch does not answer, each step is tried again at most --retries times (2 s,
 * doubled up to 30 s, in between); then the exit status is 3.
 *
 * Environment: DATABASE_URL, MEILI_URL, MEILI_API_KEY (optional), MEILI_INDEX (default
 * "documents"), LOG_LEVEL.
 */
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { parseDoc } from '@hub/contracts';
import { ConfigError, ConfigReader, createLogger, createPool, type Logger } from '@hub/service-kit';
import { createMeilisearchIndex, type MeilisearchIndex } from '../index/meilisearch/meilisearch-index';
import { meiliDocumentId } from '../index/meilisearch/mapping';
import type { DocumentChange } from '../index/search-index';
import { recordOutboxChanges } from '../index/meilisearch/outbox/enqueue';

export interface ReindexStats {
  collections: number;
  queued: number;
  deletes: number;
  unreadable: number;
}

/**
 * The stored documents to index, in batches, as upsert changes. This is the one place that
 * knows the documents table of the store (id, collection_id, dockey, version, doc = the
 * client's JSON with exact numbers); adjust it if that table changes.
 */
export async function* loadDocumentsForReindex(
  pool: pg.Pool,
  collectionId: string,
  opts: { batchSize?: number; logger?: Pick<Logger, 'warn'> } = {},
): AsyncGenerator<{ changes: DocumentChange[]; unreadable: number }> {
  const batchSize = opts.batchSize ?? 1000;
  let after = '0';
  for (;;) {
    const { rows } = await pool.query<{ id: string; dockey: string; version: string; doc: string }>(
      `SELECT id::text, dockey, version::text, doc FROM documents
        WHERE collection_id = $1 AND id > $2::bigint ORDER BY id LIMIT $3`,
      [collectionId, after, batchSize],
    );
    if (rows.length === 0) return;
    after = rows.at(-1)!.id;
    const changes: DocumentChange[] = [];
    let unreadable = 0;
    for (const row of rows) {
      const parsed = parseDoc(row.doc, 'update');
      if (!parsed.ok) {
        unreadable++;
        opts.logger?.warn(
          { collectionId, docId: row.id, error: parsed.error.text },
          'stored doc not indexable; skipped',
        );
        continue;
      }
      changes.push({
        op: 'upsert',
        collectionId,
        dockey: row.dockey,
        docId: row.id,
        version: row.version,
        doc: parsed.value,
      });
    }
    yield { changes, unreadable };
  }
}

/** Collections to reindex: the given one, or every collection. */
async function collectionIds(pool: pg.Pool, only?: string): Promise<string[]> {
  if (only) return [only];
  const { rows } = await pool.query<{ id: string }>(`SELECT id FROM collections ORDER BY id`);
  return rows.map((r) => r.id);
}

/** Calls Meilisearch through `meili` (e.g. with retries); `what` names the step. */
export type MeiliCall = <T>(what: string, call: () => Promise<T>) => Promise<T>;

/** Queues the whole rebuild of one collection (or all) in the outbox. */
export async function queueReindex(opts: {
  pool: pg.Pool;
  engine: MeilisearchIndex;
  logger: Logger;
  collectionId?: string;
  batchSize?: number;
  /** wraps every call to Meilisearch (default: called once) */
  meili?: MeiliCall;
  /** after each batch: stored documents queued so far of all to queue */
  onProgress?: (queued: number, total: number) => void;
}): Promise<ReindexStats> {
  const { pool, engine, logger } = opts;
  const meili: MeiliCall = opts.meili ?? ((_what, call) => call());
  const stats: ReindexStats = { collections: 0, queued: 0, deletes: 0, unreadable: 0 };
  await meili('applying the index settings', () => engine.ensureSettings());
  const cids = await collectionIds(pool, opts.collectionId);
  const { rows } = await pool.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM documents WHERE collection_id = ANY($1::text[])`,
    [cids],
  );
  const total = Number(rows[0]!.n);
  let seen = 0;
  for (const cid of cids) {
    stats.collections++;
    // what Meilisearch holds, read BEFORE Postgres: a document added meanwhile is then in
    // Postgres's answer and never taken for a leftover
    const inIndex = new Map<string, { dockey: string; docId: string; version: string }>();
    for (let offset = 0; ; offset += 1000) {
      const page = await meili('listing the indexed documents', () =>
        engine.gateway.listDocuments(cid, offset, 1000),
      );
      for (const d of page.results)
        inIndex.set(d.id, { dockey: d.dockey, docId: d.doc_id, version: d.version });
      if (page.results.length < 1000) break;
    }
    for await (const batch of loadDocumentsForReindex(pool, cid, {
      batchSize: opts.batchSize,
      logger,
    })) {
      await recordOutboxChanges(pool, batch.changes, { force: true });
      stats.queued += batch.changes.length;
      stats.unreadable += batch.unreadable;
      for (const c of batch.changes) inIndex.delete(meiliDocumentId(cid, c.dockey));
      seen += batch.changes.length + batch.unreadable;
      // documents added meanwhile can make it more than counted at the start
      opts.onProgress?.(seen, Math.max(total, seen));
    }
    // leftovers: in Meilisearch, not in Postgres (a delete at the version Meilisearch holds)
    const leftovers: DocumentChange[] = [...inIndex.values()].map((d) => ({
      op: 'delete',
      collectionId: cid,
      dockey: d.dockey,
      docId: d.docId,
      version: d.version,
      doc: null,
    }));
    await recordOutboxChanges(pool, leftovers, { force: true });
    stats.deletes += leftovers.length;
    logger.info(
      { collectionId: cid, queued: stats.queued, deletes: leftovers.length },
      'collection queued for reindex',
    );
  }
  if (seen === 0) opts.onProgress?.(0, 0);
  return stats;
}

export const REINDEX_USAGE = `usage: pnpm reindex -- [--collection ID] [--no-wait] [--retries N]
       (node services/search-service/dist/cli/reindex.js [options] in a container)

Rebuilds the Meilisearch index from the documents in Postgres: queues every stored document
(and a delete for every indexed document Postgres no longer has) in the outbox, then sends
them. The service may keep running and writing meanwhile.

  --collection ID  only this collection (8 letters or digits); default: every collection
  --no-wait        only queue the changes; the running service's relays send them
  --retries N      while Meilisearch does not answer, try each step again at most N times
                   (2 s, doubled up to 30 s, in between; default 5, 0 to 100)
  -h, --help       this text

Environment: DATABASE_URL, MEILI_URL (required), MEILI_API_KEY, MEILI_INDEX (default
documents), LOG_LEVEL. Progress goes to stderr (done/total, rate, ETA), the totals to stdout
as JSON.
Exit status: 0 done; 1 failed; 2 usage or configuration error; 3 Meilisearch did not answer
after the retries (what was queued stays in the outbox for the service's relays).`;

export const EXIT = { ok: 0, failed: 1, usage: 2, meilisearchDown: 3 } as const;

export interface ReindexArgs {
  help: boolean;
  collectionId?: string;
  wait: boolean;
  retries: number;
}

class UsageError extends Error {}

/** Meilisearch did not answer within the retries. */
class MeilisearchDownError extends Error {}

/** The command line (`--` before the options, as `pnpm reindex -- …` may pass it, is skipped). */
export function parseReindexArgs(argv: string[]): ReindexArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv[0] === '--' ? argv.slice(1) : argv,
      options: {
        collection: { type: 'string' },
        'no-wait': { type: 'boolean' },
        retries: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (err) {
    throw new UsageError(argumentProblem(err));
  }
  const { values } = parsed;
  const out: ReindexArgs = {
    help: values.help ?? false,
    wait: !values['no-wait'],
    retries: 5,
  };
  if (out.help) return out;
  if (values.collection !== undefined) {
    if (!/^[A-Za-z0-9]{8}$/.test(values.collection))
      throw new UsageError('--collection needs an 8-character collection id (letters and digits)');
    out.collectionId = values.collection;
  }
  if (values.retries !== undefined) {
    const n = /^\d{1,3}$/.test(values.retries) ? Number(values.retries) : NaN;
    if (!(n <= 100)) throw new UsageError('--retries needs a whole number from 0 to 100');
    out.retries = n;
  }
  return out;
}

/** parseArgs's error as one short line. */
function argumentProblem(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  // not `instanceof Error`: node's errors may come from another realm (jest)
  const message = String((err as Error)?.message ?? err);
  const option = /'(-[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) return `${option} needs a value`;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) return `unknown option '${option}'`;
  const positional = /^Unexpected argument '([^']*)'/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && positional !== undefined)
    return `unexpected argument '${positional}'`;
  return message.split('\n')[0]!;
}

function formatDuration(seconds: number): string {
  const s = Math.ceil(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** `reindex: queued 1500/6000 (25 %), 500/s, ETA 9 s` */
export function formatProgress(
  verb: string,
  done: number,
  total: number,
  elapsedMs: number,
): string {
  const percent = total === 0 ? 100 : Math.floor((done * 100) / total);
  const perSecond = elapsedMs > 0 ? done / (elapsedMs / 1000) : 0;
  const rate = perSecond < 10 ? perSecond.toFixed(1) : String(Math.round(perSecond));
  const eta =
    done >= total ? '0 s' : perSecond > 0 ? formatDuration((total - done) / perSecond) : 'unknown';
  return `reindex: ${verb} ${done}/${total} (${percent} %), ${rate}/s, ETA ${eta}`;
}

/** Prints progress lines at most every intervalMs (and always the last one, done = total). */
function progressReporter(
  verb: string,
  print: (line: string) => void,
  intervalMs: number,
  now: () => number,
) {
  const started = now();
  let lastPrinted = -Infinity;
  let last = '';
  return (done: number, total: number) => {
    const t = now();
    const key = `${done}/${total}`;
    if (key === last || (t - lastPrinted < intervalMs && done < total)) return;
    last = key;
    lastPrinted = t;
    print(formatProgress(verb, done, total, t - started));
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export interface ReindexCliIo {
  out(text: string): void;
  err(text: string): void;
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
  try {
    args = parseReindexArgs(argv);
    if (args.help) {
      io.out(REINDEX_USAGE);
      return EXIT.ok;
    }
    const r = new ConfigReader(env);
    databaseUrl = r.url('DATABASE_URL', { protocols: ['postgres', 'postgresql'] });
    meiliUrl = r.url('MEILI_URL', { protocols: ['http', 'https'] });
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
  const firstDelayMs = opts.retryDelayMs ?? 2000;
  const intervalMs = opts.progressIntervalMs ?? 2000;
  const logger = opts.logger ?? createLogger('search-service-reindex', env.LOG_LEVEL ?? 'info');
  const pool = createPool(databaseUrl, 4);
  const engine = createMeilisearchIndex({
    pool,
    url: meiliUrl,
    apiKey: env.MEILI_API_KEY || undefined,
    indexUid: env.MEILI_INDEX || undefined,
    logger,
    runRelay: false,
  });
  const attempts = args.retries + 1;
  const retryDelay = (attempt: number) => Math.min(firstDelayMs * 2 ** (attempt - 1), 30_000);
  const withRetries: MeiliCall = async (what, call) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        if (attempt >= attempts)
          throw new MeilisearchDownError(
            `Meilisearch did not answer after ${attempts} attempts (${what}: ${errorText(err)})`,
          );
        const delay = retryDelay(attempt);
        io.err(
          `reindex: ${what} failed (${errorText(err)}); attempt ${attempt + 1} of ${attempts} in ${delay} ms`,
        );
        await sleep(delay);
      }
    }
  };
  let queuedAny = false;
  try {
    const stats = await queueReindex({
      pool,
      engine,
      logger,
      collectionId: args.collectionId,
      meili: withRetries,
      onProgress: (() => {
        const report = progressReporter('queued', io.err, intervalMs, now);
        return (done: number, total: number) => {
          queuedAny ||= done > 0;
          report(done, total);
        };
      })(),
    });
    queuedAny = true;
    if (args.wait) {
      const sent = await sendQueued(engine, stats.queued + stats.deletes, {
        io,
        attempts,
        retryDelay,
        attemptTimeoutMs: opts.attemptTimeoutMs ?? 60_000,
        report: progressReporter('sent', io.err, intervalMs, now),
        pollMs: Math.max(intervalMs, 100),
      });
      if (!sent.ok) {
        io.err(
          `reindex: Meilisearch did not take the queued changes after ${attempts} attempts; ` +
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

/**
 * Runs the relay until the outbox is empty, in attempts of attemptTimeoutMs; an attempt after
 * which fewer rows are pending counts as progress (the attempts start again), one without
 * progress as a failed attempt. Progress: sent = total − pending (the service's own rows make
 * pending a little larger while it writes).
 */
async function sendQueued(
  engine: MeilisearchIndex,
  total: number,
  o: {
    io: ReindexCliIo;
    attempts: number;
    retryDelay: (attempt: number) => number;
    attemptTimeoutMs: number;
    report: (done: number, total: number) => void;
    pollMs: number;
  },
): Promise<{ ok: true } | { ok: false; pending: number }> {
  const sentSoFar = (pending: number) => total - Math.min(total, pending);
  let pending = (await engine.relay.pending()).count;
  o.report(sentSoFar(pending), total);
  let failed = 0;
  for (;;) {
    let polling = true;
    const poll = (async () => {
      while (polling) {
        await sleep(o.pollMs);
        if (polling) o.report(sentSoFar((await engine.relay.pending()).count), total);
      }
    })();
    let error: unknown = null;
    try {
      await engine.relay.drain({ timeoutMs: o.attemptTimeoutMs, ignoreBackoff: false });
    } catch (err) {
      error = err;
    } finally {
      polling = false;
      await poll.catch(() => {});
    }
    const before = pending;
    pending = (await engine.relay.pending()).count;
    o.report(sentSoFar(pending), total);
    if (error === null) return { ok: true };
    if (pending < before) {
      failed = 0;
      continue;
    }
    failed++;
    if (failed >= o.attempts) return { ok: false, pending };
    const delay = o.retryDelay(failed);
    o.io.err(
      `reindex: sending the queued changes failed (${errorText(error)}); attempt ${failed + 1} of ${o.attempts} in ${delay} ms`,
    );
    await sleep(delay);
  }
}

if (require.main === module) {
  runReindexCli(process.argv.slice(2), process.env, {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
  }).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`reindex: ${errorText(err)}\n`);
      process.exit(EXIT.failed);
    },
  );
}
