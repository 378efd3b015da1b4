import type pg from 'pg';
import {
  createMeilisearchIndex,
  type MeilisearchIndex,
  type MeilisearchIndexOptions,
} from '../../src/index/meilisearch/meilisearch-index';
import { createCollection } from '../../src/store/collections';
import { insertDocument } from '../../src/store/documents';
import { startMeiliStub, type MeiliStub } from '../meili-stub';
import { silentLogger, withTx } from '../outbox-fixtures';
import { closeAfterAll, useSearchDatabase, type TestDatabase } from './harness';

export interface MeiliTest {
  db: TestDatabase;
  stub: MeiliStub;
  /** the Meilisearch engine on the stub (unless `engine: false`) */
  engine: MeilisearchIndex;
}

/**
 * A test file's database and Meilisearch stub, and the Meilisearch engine on them (made with
 * the `engine` options, silent), ready before its tests and handed to `opened`; after them the
 * engine stops and the stub closes, then the database goes (useSearchDatabase).
 */
export function useMeilisearch(
  opened: (m: MeiliTest) => void,
  opts: { engine?: Partial<MeilisearchIndexOptions> | false } = {},
): void {
  const db = useSearchDatabase();
  beforeAll(async () => {
    const stub = await startMeiliStub();
    const engine =
      opts.engine === false
        ? (undefined as unknown as MeilisearchIndex)
        : createMeilisearchIndex({
            pool: db.pool,
            url: stub.url,
            logger: silentLogger,
            ...opts.engine,
          });
    closeAfterAll(async () => {
      await engine?.stop();
      await stub.close();
    });
    opened({ db, stub, engine });
  });
}

/**
 * A collection made in the store (not through the API) holding a document per key, titled
 * "stored <key>": its id and the document ids by key.
 */
export async function storedCollection(
  pool: pg.Pool,
  keys = ['a', 'b', 'c'],
): Promise<{ cid: string; docIds: Map<string, string> }> {
  const limits = { maxDocuments: 100, maxApiCalls: 100, thumbnailSize: '130X130' };
  const cid = (await createCollection(pool, limits)).collection.id;
  const docIds = new Map<string, string>();
  await withTx(pool, async (tx) => {
    for (const key of keys) {
      const doc = {
        icontents_title: `stored ${key}`,
        icontents_body: 'body',
        score_regdate: 1700000000,
      };
      const ref = await insertDocument(tx, cid, key, JSON.stringify(doc));
      docIds.set(key, ref!.id);
    }
  });
  return { cid, docIds };
}
