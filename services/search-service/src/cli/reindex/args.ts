import { parseArgs } from 'node:util';
import { isCollectionId } from '@hub/contracts';

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

/** A command line that cannot be run (exit status 2, with a hint at --help). */
export class UsageError extends Error {}

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
    if (!isCollectionId(values.collection))
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

/**
 * parseArgs's error as one short line. Its kind is decided by node's `code` only; the message
 * is read just to quote the option or argument it names (node's error has no property for
 * it), and a message of another shape falls back to node's own first line.
 */
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
