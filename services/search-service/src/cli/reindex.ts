/**
 * `pnpm --filter search-service reindex [--collection ID] [--no-wait]` (node dist/cli/reindex.js):
 * rebuilds the Meilisearch index from the documents in Postgres.
 *
 * It never writes to Meilisearch itself: it applies the index settings, then queues every
 * stored document (and a delete for every Meilisearch document that Postgres no longer has)
 * in the outbox as "forced" rows, so the relay's ordering rules still hold while the service
 * keeps writing (a reindex row never overwrites a newer change). Then it runs a relay until the
 * outbox is empty (a running service's relays help; --no-wait leaves the work to them).
 *
 * Environment: DATABASE_URL, MEILI_URL, MEILI_API_KEY (optional), MEILI_INDEX (default
 * "documents"), LOG_LEVEL.
 */
import type pg from 'pg';
import { parseDoc } from '@hub/contracts';
import { ConfigReader, createLogger, createPool, type Logger } from '@hub/service-kit';
import { createMeilisearchIndex, type MeilisearchIndex } from '../index/meilisearch';
import { meiliDocumentId } from '../index/meilisearch/mapping';
import type { DocumentChange } from '../index/search-index';
import { recordOutboxChanges } from '../outbox/outbox';

const USAGE = 'usage: reindex [--collection ID] [--no-wait]';

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

/** Queues the whole rebuild of one collection (or all) in the outbox. */
export async function queueReindex(opts: {
  pool: pg.Pool;
  engine: MeilisearchIndex;
  logger: Logger;
  collectionId?: string;
  batchSize?: number;
}): Promise<ReindexStats> {
  const { pool, engine, logger } = opts;
  const stats: ReindexStats = { collections: 0, queued: 0, deletes: 0, unreadable: 0 };
  await engine.ensureSettings();
  for (const cid of await collectionIds(pool, opts.collectionId)) {
    stats.collections++;
    // what Meilisearch holds, read BEFORE Postgres: a document added meanwhile is then in
    // Postgres's answer and never taken for a leftover
    const inIndex = new Map<string, { dockey: string; docId: string; version: string }>();
    for (let offset = 0; ; offset += 1000) {
      const page = await engine.gateway.listDocuments(cid, offset, 1000);
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
  return stats;
}

function parseArgs(args: string[]): { collectionId?: string; wait: boolean } {
  const out: { collectionId?: string; wait: boolean } = { wait: true };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--no-wait') out.wait = false;
    else if (arg === '--collection') out.collectionId = args[++i];
    else if (arg.startsWith('--collection=')) out.collectionId = arg.slice('--collection='.length);
    else throw new Error(`${USAGE}\nunknown argument ${arg}`);
  }
  if (out.collectionId !== undefined && !/^[A-Za-z0-9]{8}$/.test(out.collectionId)) {
    throw new Error(`${USAGE}\n--collection needs an 8-character collection id`);
  }
  return out;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const r = new ConfigReader();
  const databaseUrl = r.url('DATABASE_URL', { protocols: ['postgres', 'postgresql'] });
  const meiliUrl = r.url('MEILI_URL', { protocols: ['http', 'https'] });
  r.done('search-service reindex');
  const logger = createLogger('search-service-reindex');
  const pool = createPool(databaseUrl, 4);
  const engine = createMeilisearchIndex({
    pool,
    url: meiliUrl,
    apiKey: process.env.MEILI_API_KEY || undefined,
    indexUid: process.env.MEILI_INDEX || undefined,
    logger,
    runRelay: false,
  });
  try {
    const stats = await queueReindex({ pool, engine, logger, collectionId: args.collectionId });
    if (args.wait) {
      for (;;) {
        try {
          await engine.relay.drain({ timeoutMs: 60_000, ignoreBackoff: false });
          break;
        } catch (err) {
          const p = await engine.relay.pending();
          logger.info({ pending: p.count, err: (err as Error).message }, 'reindex still sending');
        }
      }
    }
    process.stdout.write(`${JSON.stringify({ ...stats, waited: args.wait })}\n`);
  } finally {
    await pool.end();
  }
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
