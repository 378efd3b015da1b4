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
 *
 * This file is the entry point only; the command is in reindex/: args.ts (the command line and
 * its usage), queue.ts (queueing the rebuild in the outbox), retries.ts and send-queued.ts
 * (waiting for Meilisearch), progress.ts (the progress lines), run.ts (runReindexCli).
 */
import { errorText } from '@hub/service-kit';
import { EXIT } from './reindex/args';
import { runReindexCli } from './reindex/run';

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
