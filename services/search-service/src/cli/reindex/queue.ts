import type pg from 'pg';
import { parseDoc } from '@hub/contracts';
import type { Logger } from '@hub/service-kit';
import { meiliDocumentId } from '../../index/meilisearch/mapping';
import type { MeilisearchIndex } from '../../index/meilisearch/meilisearch-index';
import { recordOutboxChanges } from '../../index/meilisearch/outbox/enqueue';
import type { DocumentChange } from '../../index/search-index';

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
