import type { TestDatabase } from '@hub/testing';
import { createMetrics } from '@hub/service-kit';
import type { MeilisearchIndex } from '../src/index/meilisearch/meilisearch-index';
import { meiliDocumentId } from '../src/index/meilisearch/mapping';
import { listDeadLetters, retryDeadLetters } from '../src/index/meilisearch/outbox/dead-letters';
import { useRelayTest } from './helpers/outbox-relay';
import type { MeiliStub } from './meili-stub';
import { upsert, withTx } from './outbox-fixtures';

/**
 * A change that Meilisearch keeps rejecting on its own goes to search_outbox_dead_letters after
 * maxRejections attempts; the other changes keep flowing; status, /metrics and a retry.
 */

let db: TestDatabase;
let stub: MeiliStub;
let engine: MeilisearchIndex;
const { makeEngine } = useRelayTest((t) => ({ db, stub, engine } = t), {
  current: () => engine,
  options: { relay: { baseBackoffMs: 50, maxBackoffMs: 200, maxRejections: 3 } },
});

const id = (dockey: string) => meiliDocumentId('abcd1234', dockey);
const poison = id('poison');

async function recordThree(): Promise<void> {
  await withTx(db.pool, async (tx) => {
    await engine.recordChange(tx, upsert({ dockey: 'a', docId: 1, version: 1 }));
    await engine.recordChange(tx, upsert({ dockey: 'poison', docId: 2, version: 1 }));
    await engine.recordChange(tx, upsert({ dockey: 'b', docId: 3, version: 1 }));
  });
}

async function runBatches(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await engine.relay.runOnce({ ignoreBackoff: true });
}

beforeEach(() => {
  stub.failTasks(1000, 'invalid_request', (docs) => docs.some((d) => d.id === poison));
});

test('When Meilisearch rejects one document, it goes to the dead letters after 3 rejections of it alone and the others are indexed', async () => {
  await recordThree();
  // batch 1: the three together, rejected → each is sent alone from then on
  // batches 2–4: a and b arrive; the poison is rejected alone three times → dead letter
  await runBatches(4);
  expect([...stub.documents().keys()].sort()).toEqual([id('a'), id('b')].sort());
  const adds = stub.requests.filter(
    (r) =>
      r.path === '/indexes/documents/documents' &&
      (r.body as Array<{ id: string }>).some((d) => d.id === poison),
  );
  expect(adds).toHaveLength(4);
  expect(await engine.relay.pending()).toEqual({ count: 0, oldestAgeSeconds: null });
  const dead = await listDeadLetters(db.pool, {});
  expect(dead).toHaveLength(1);
  expect(dead[0]).toMatchObject({
    op: 'upsert',
    collection_id: 'abcd1234',
    meili_id: poison,
    dockey: 'poison',
    doc_id: '2',
    version: '1',
    attempts: 4,
  });
  expect(dead[0]!.last_error).toMatch(/invalid_document_fields/);
  // a fifth batch sends nothing more
  const before = stub.requests.length;
  await runBatches(1);
  expect(stub.requests.length).toBe(before);
});

test('When a collection has dead letters and nothing else pending, search_status stays true', async () => {
  await recordThree();
  await runBatches(4);
  await db.pool.query(
    `UPDATE search_outbox_dead_letters SET created_at = now() - interval '1 hour'`,
  );
  await expect(engine.status('abcd1234')).resolves.toEqual({ searchable: true });
});

test('When dead letters are retried, they are queued again and arrive once Meilisearch accepts them', async () => {
  await recordThree();
  await runBatches(4);
  stub.reset();
  expect(await retryDeadLetters(db.pool, { collectionId: 'abcd1234' })).toBe(1);
  expect(await listDeadLetters(db.pool, {})).toEqual([]);
  expect((await engine.relay.pending('abcd1234')).count).toBe(1);
  await engine.settle();
  expect(stub.documents().get(poison)).toMatchObject({ doc_id: '2', version: '1' });
  expect(await listDeadLetters(db.pool, {})).toEqual([]);
});

test('When a newer version of a dead-lettered document is indexed, the dead letter is removed', async () => {
  await recordThree();
  await runBatches(4);
  stub.reset();
  await withTx(db.pool, (tx) =>
    engine.recordChange(tx, upsert({ dockey: 'poison', docId: 2, version: 2 })),
  );
  await engine.settle();
  expect(stub.documents().get(poison)).toMatchObject({ version: '2' });
  expect(await listDeadLetters(db.pool, {})).toEqual([]);
});

test('When a metrics registry is passed, /metrics counts the dead letters', async () => {
  const metrics = createMetrics('search-service');
  await engine.stop();
  engine = makeEngine({ metrics });
  await recordThree();
  await runBatches(4);
  const text = await metrics.registry.metrics();
  expect(text).toMatch(/^search_outbox_dead_letters\{service="search-service"\} 1$/m);
  expect(text).toMatch(/^search_outbox_dead_lettered_total\{service="search-service"\} 1$/m);
});
