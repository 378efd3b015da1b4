import type pg from 'pg';
import { SEARCH_ERRORS } from '@hub/contracts';
import type { SearchApp } from '../src/app';
import { newCollection, useSearchApp } from './helpers/harness';
import { client, docJson, statusDocumentCount } from './helpers/requests';

/**
 * A collection's free document slots sit in 16 shards (migration document-slot-shards): an add
 * takes a slot from its connection's shard, so adds on different connections do not wait for
 * each other, and documents = max_documents - the shards' free slots, always.
 */

let app: SearchApp;
const db = useSearchApp((t) => ({ app } = t), { poolSize: 20 });

/** two connections whose slots come from different shards */
async function twoShards(): Promise<[pg.PoolClient, pg.PoolClient]> {
  const held: pg.PoolClient[] = [];
  try {
    for (;;) {
      const c = await db.pool.connect();
      held.push(c);
      const shard = async (x: pg.PoolClient) =>
        (await x.query<{ s: number }>('SELECT pg_backend_pid() % 16 AS s')).rows[0]!.s;
      const first = held[0]!;
      if (c !== first && (await shard(c)) !== (await shard(first))) return [first, c];
    }
  } finally {
    for (const c of held.slice(1, -1)) c.release();
  }
}

/**
 * Runs `other` on a second connection (another shard; in a transaction with a 2 s lock
 * timeout) while a first connection holds a slot of the collection it has not committed; then
 * both transactions end with `end`, the second first.
 */
async function whileASlotIsHeld(
  collectionId: string,
  end: 'COMMIT' | 'ROLLBACK',
  other: (b: pg.PoolClient) => Promise<void>,
): Promise<void> {
  const [a, b] = await twoShards();
  try {
    await a.query('BEGIN');
    await a.query('SELECT take_document_slot($1)', [collectionId]);
    await b.query('BEGIN');
    await b.query("SET LOCAL lock_timeout = '2s'");
    await other(b);
    await b.query(end);
    await a.query(end);
  } finally {
    a.release();
    b.release();
  }
}

test('When an add holds a slot it has not committed, an add on another connection takes its own slot without waiting', async () => {
  const c = await newCollection(app, { max_documents: 1000 });
  await whileASlotIsHeld(c.cid, 'COMMIT', async (b) => {
    await b.query('SELECT take_document_slot($1)', [c.cid]);
  });
  expect(await statusDocumentCount(app, c)).toBe(2);
});

test('When the shard of an add is empty, the add takes a slot the other shards have, until the collection is full', async () => {
  // 3 slots: shards 0, 1 and 2 have one each; most connections find theirs empty
  const c = await newCollection(app, { max_documents: 3 });
  const api = client(app, c);
  const answers = [];
  for (let i = 0; i < 4; i++) answers.push((await api.add(`d${i}`, docJson())).text);
  expect(answers).toEqual(['OK', 'OK', 'OK', SEARCH_ERRORS.add.indexMaxReached.text]);
  expect(await statusDocumentCount(app, c)).toBe(3);
});

test('When the maximum is lowered below the count and raised again, the count stays exact and adds stop and resume', async () => {
  const c = await newCollection(app, { max_documents: 10 });
  const api = client(app, c);
  for (let i = 0; i < 5; i++) expect((await api.add(`d${i}`, docJson())).text).toBe('OK');
  await db.pool.query('UPDATE collections SET max_documents = 3 WHERE id = $1', [c.cid]);
  expect(await statusDocumentCount(app, c)).toBe(5);
  expect((await api.add('over', docJson())).text).toBe(SEARCH_ERRORS.add.indexMaxReached.text);
  expect((await api.delete('d0')).text).toBe('OK');
  expect(await statusDocumentCount(app, c)).toBe(4);
  await db.pool.query('UPDATE collections SET max_documents = 6 WHERE id = $1', [c.cid]);
  expect((await api.add('again', docJson())).text).toBe('OK');
  expect((await api.add('full', docJson())).text).toBe('OK');
  expect((await api.add('over', docJson())).text).toBe(SEARCH_ERRORS.add.indexMaxReached.text);
  expect(await statusDocumentCount(app, c)).toBe(6);
});

test('When a delete finds no such document, its slot stays taken', async () => {
  const c = await newCollection(app, { max_documents: 2 });
  const api = client(app, c);
  expect((await api.add('a', docJson())).text).toBe('OK');
  expect((await api.delete('missing')).text).toBe(SEARCH_ERRORS.delete.dockeyInvalid.text);
  expect(await statusDocumentCount(app, c)).toBe(1);
  expect((await api.add('b', docJson())).text).toBe('OK');
  expect((await api.add('c', docJson())).text).toBe(SEARCH_ERRORS.add.indexMaxReached.text);
});

test('When the maximum is lowered below the count, no add on any connection takes a slot', async () => {
  const c = await newCollection(app, { max_documents: 64 });
  const api = client(app, c);
  const added = await Promise.all(
    Array.from({ length: 20 }, (_, i) => api.add(`d${i}`, docJson())),
  );
  expect(added.map((r) => r.text)).toEqual(Array(20).fill('OK'));
  await db.pool.query('UPDATE collections SET max_documents = 10 WHERE id = $1', [c.cid]);
  const over = await Promise.all(Array.from({ length: 16 }, (_, i) => api.add(`o${i}`, docJson())));
  expect(over.map((r) => r.text)).toEqual(Array(16).fill(SEARCH_ERRORS.add.indexMaxReached.text));
  const deleted = await Promise.all(Array.from({ length: 11 }, (_, i) => api.delete(`d${i}`)));
  expect(deleted.map((r) => r.text)).toEqual(Array(11).fill('OK'));
  const again = await Promise.all(Array.from({ length: 4 }, (_, i) => api.add(`a${i}`, docJson())));
  expect(again.map((r) => r.text).sort()).toEqual(
    [
      'OK',
      SEARCH_ERRORS.add.indexMaxReached.text,
      SEARCH_ERRORS.add.indexMaxReached.text,
      SEARCH_ERRORS.add.indexMaxReached.text,
    ].sort(),
  );
  expect(await statusDocumentCount(app, c)).toBe(10);
});

describe('take_document_slots (several slots at once, for a group of adds)', () => {
  const shardsFree = async (cid: string) =>
    (
      await db.pool.query<{ free: number }>(
        'SELECT free FROM collection_slots WHERE collection_id = $1 ORDER BY shard',
        [cid],
      )
    ).rows.map((r) => r.free);

  test('When shards no other add holds have the room, it takes the slots from them, as few shards as can give them, and the count follows', async () => {
    const c = await newCollection(app, { max_documents: 160 });
    await db.pool.query('SELECT take_document_slots($1, 25)', [c.cid]);
    const free = await shardsFree(c.cid);
    expect(free.reduce((a, b) => a + b, 0)).toBe(135);
    // 10 slots a shard: two shards emptied and 5 from a third, the others untouched
    expect(free.filter((f) => f < 10).sort()).toEqual([0, 0, 5]);
    expect(await statusDocumentCount(app, c)).toBe(25);
  });

  test('When the shards no other add holds lack the room, it fails with SF003 without waiting and takes nothing', async () => {
    const c = await newCollection(app, { max_documents: 32 });
    // the first connection holds its shard (2 slots there): the 15 others have 30, 31 are not at hand
    await whileASlotIsHeld(c.cid, 'ROLLBACK', async (b) => {
      await expect(b.query('SELECT take_document_slots($1, 31)', [c.cid])).rejects.toMatchObject({
        code: 'SF003',
      });
    });
    expect(await statusDocumentCount(app, c)).toBe(0);
  });

  test('When the collection is gone, it fails as one slot does (foreign_key_violation)', async () => {
    await expect(
      db.pool.query('SELECT take_document_slots($1, 3)', ['Gone1234']),
    ).rejects.toMatchObject({ code: '23503' });
  });
});
