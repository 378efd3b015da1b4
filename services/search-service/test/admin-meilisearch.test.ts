import { listen, openApiChecker } from '@hub/testing';
import { OPENAPI, type SearchApp } from '../src/app';
import type { MeilisearchIndex } from '../src/index/meilisearch/meilisearch-index';
import { adminApi, adminCli } from './helpers/admin';
import { closeAfterAll, makeApp, newCollection, type TestDatabase } from './helpers/harness';
import { client } from './helpers/requests';
import { useMeilisearch } from './helpers/meili';

/**
 * The admin API in Meilisearch mode: max_documents never above the index's maxTotalHits (so
 * numfound stays exact), and the dead letters of the outbox, listed and retried (API and CLI).
 */

let db: TestDatabase;
let engine: MeilisearchIndex;
let app: SearchApp;
let url: string;

useMeilisearch((m) => ({ db, engine } = m), { engine: { maxTotalHits: 5000 } });
beforeAll(async () => {
  app = makeApp(db, { index: engine, env: { SEARCH_DEFAULT_MAX_DOCUMENTS: '500' } });
  const server = await listen(app);
  closeAfterAll(server.close);
  url = server.url;
});

const admin = () => adminApi(app);
const checkOpenApi = openApiChecker(OPENAPI as Record<string, unknown>);

const cli = (...argv: string[]) => adminCli(url, ...argv);

/** A dead letter as the relay leaves it (the relay itself is tested in outbox-dead-letters). */
async function deadLetter(collectionId: string, dockey: string): Promise<string> {
  const r = await db.pool.query<{ id: string }>(
    `INSERT INTO search_outbox_dead_letters
       (outbox_id, op, collection_id, meili_id, dockey, doc_id, version, payload, force, attempts, last_error, created_at)
     VALUES (1, 'delete', $1, $1 || '-' || $2, $2, 7, 3, NULL, false, 6, 'Meilisearch task 9 failed', now())
     RETURNING id::text`,
    [collectionId, dockey],
  );
  return r.rows[0]!.id;
}

describe('max_documents in Meilisearch mode', () => {
  const refusal = {
    error:
      'max_documents must be an integer from 0 to 5000 (the Meilisearch index counts at most 5000 matches: MEILI_MAX_TOTAL_HITS)',
  };

  test('When a collection is created with max_documents above maxTotalHits, it answers 400; at maxTotalHits, 201', async () => {
    const over = await admin().post('/collections').send({
      max_documents: 5001,
    });
    expect([over.status, over.body]).toEqual([400, refusal]);
    const at = await admin().post('/collections').send({
      max_documents: 5000,
    });
    expect(at.status).toBe(201);
    expect(at.body.max_documents).toBe(5000);
  });

  test('When max_documents is raised above maxTotalHits, the change answers 400 and the limit stays', async () => {
    const created = await admin().post('/collections').send({});
    const id = created.body.collection_id as string;
    const over = await admin().patch(`/collections/${id}`).send({ max_documents: 5001 });
    expect([over.status, over.body]).toEqual([400, refusal]);
    const got = await admin().get(`/collections/${id}`);
    expect(got.body.max_documents).toBe(500);
  });
});

describe('dead letters', () => {
  /** The change of deadLetter('aaaa1111', 'k1'), as listed and as queued again. */
  const K1 = {
    op: 'delete',
    collection_id: 'aaaa1111',
    meili_id: 'aaaa1111-k1',
    dockey: 'k1',
    doc_id: '7',
    version: '3',
  };

  beforeEach(async () => {
    await db.pool.query('TRUNCATE search_outbox, search_outbox_dead_letters');
  });

  test('When dead letters exist, the admin API lists them by collection, oldest first, paged', async () => {
    const first = await deadLetter('aaaa1111', 'k1');
    const second = await deadLetter('aaaa1111', 'k2');
    await deadLetter('bbbb2222', 'k3');
    const page = await admin().get('/dead-letters?collection_id=aaaa1111&limit=1');
    expect(page.status).toBe(200);
    expect(page.body).toEqual({
      dead_letters: [
        {
          id: first,
          ...K1,
          attempts: 6,
          last_error: 'Meilisearch task 9 failed',
          created_at: expect.any(String),
          dead_at: expect.any(String),
        },
      ],
      next_after: first,
    });
    const next = await admin().get(`/dead-letters?collection_id=aaaa1111&limit=1&after=${first}`);
    expect(next.body.dead_letters.map((d: { id: string }) => d.id)).toEqual([second]);
    const all = await admin().get('/dead-letters');
    expect(all.body.dead_letters).toHaveLength(3);
    expect(all.body.next_after).toBeNull();
    for (const res of [page, next, all]) checkOpenApi('GET', '/admin/dead-letters', res);
    const bad = await admin().get('/dead-letters?after=x');
    expect([bad.status, bad.body]).toEqual([400, { error: 'after must be a dead letter id' }]);
    checkOpenApi('GET', '/admin/dead-letters', bad);
  });

  test('When dead letters are retried through the admin API, they are queued again in the outbox', async () => {
    await deadLetter('aaaa1111', 'k1');
    const other = await deadLetter('bbbb2222', 'k3');
    const res = await admin().post('/dead-letters/retry').send({ collection_id: 'aaaa1111' });
    expect([res.status, res.body]).toEqual([200, { requeued: 1 }]);
    checkOpenApi('POST', '/admin/dead-letters/retry', res);
    const outbox = await db.pool.query(
      `SELECT op, collection_id, meili_id, dockey, doc_id::text, version::text, attempts, done_at
         FROM search_outbox`,
    );
    expect(outbox.rows).toEqual([
      {
        ...K1,
        attempts: 0,
        done_at: null,
      },
    ]);
    const left = await admin().get('/dead-letters');
    expect(left.body.dead_letters.map((d: { id: string }) => d.id)).toEqual([other]);
    const byId = await admin()
      .post('/dead-letters/retry')
      .send({ ids: [other] });
    expect(byId.body).toEqual({ requeued: 1 });
    const bad = await admin()
      .post('/dead-letters/retry')
      .send({ ids: ['x'] });
    expect([bad.status, bad.body]).toEqual([
      400,
      { error: 'ids must be a list of dead letter ids' },
    ]);
    checkOpenApi('POST', '/admin/dead-letters/retry', bad);
  });

  test('When an operator runs dead-letters and retry-dead-letters, the CLI lists and re-queues them', async () => {
    const first = await deadLetter('aaaa1111', 'k1');
    await deadLetter('bbbb2222', 'k3');
    const listed = await cli('dead-letters', '--collection', 'aaaa1111');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.out).dead_letters.map((d: { id: string }) => d.id)).toEqual([first]);
    const retried = await cli('retry-dead-letters', '--collection', 'aaaa1111');
    expect([retried.code, JSON.parse(retried.out)]).toEqual([0, { requeued: 1 }]);
    const all = await cli('retry-dead-letters');
    expect(JSON.parse(all.out)).toEqual({ requeued: 1 });
    expect((await cli('retry-dead-letters', 'nope')).code).toBe(2);
  });

  test('When a collection has dead letters but no pending change, its search_status stays "true"', async () => {
    const c = await newCollection(app);
    await deadLetter(c.cid, 'k1');
    await db.pool.query(
      `UPDATE search_outbox_dead_letters SET created_at = now() - interval '1 hour', dead_at = now() - interval '1 hour'`,
    );
    const status = await client(app, c).status();
    expect([status.status, status.body.search_status]).toEqual([200, 'true']);
  });
});
