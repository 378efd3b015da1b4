import type pg from 'pg';
import { parseDoc, SEARCH_ERRORS } from '@hub/contracts';
import type { SearchApp } from '../src/app';
import { createPostgresIndex } from '../src/index/postgres/postgres-index';
import { NoDocumentSlot } from '../src/store/collections';
import { addInOneStatement, AddStatementFailed, type NewDocument } from '../src/store/documents';
import { createGroupedAdds, takeGroup } from '../src/store/grouped-adds';
import {
  interceptedPool,
  makeApp,
  newCollection,
  storedCounts,
  useSearchDatabase,
} from './helpers/harness';
import { client, docJson, type TestCollection } from './helpers/requests';

/**
 * The adds of a collection reach PostgreSQL in groups (store/grouped-adds.ts): adds that arrive
 * while the collection's statements are under way go together in one statement, and each still
 * answers as if it had been sent alone.
 */

const db = useSearchDatabase();
let app: SearchApp;
beforeAll(() => {
  app = makeApp(db);
});

/** A pool that counts the add statements sent through it: how many documents each carried. */
function countingPool(): { pool: pg.Pool; sizes: number[]; collections: string[] } {
  const sizes: number[] = [];
  const collections: string[] = [];
  const pool = interceptedPool(db.pool, (q, run) => {
    const config = q as { text?: string; values?: unknown[] };
    const text = typeof config === 'object' ? (config.text ?? '') : '';
    if (/^WITH added\d+ AS/.test(text)) {
      sizes.push(text.split('INSERT INTO documents').length - 1);
      collections.push(String(config.values?.[0]));
    }
    return run();
  });
  return { pool, sizes, collections };
}

/** A new document as the add use case hands it over: its JSON and the engine's pending row. */
function newDocument(collectionId: string, dockey: string, title = dockey): NewDocument {
  const parsed = parseDoc(docJson({ icontents_title: title }), 'add');
  if (!parsed.ok) throw new Error('test doc invalid');
  const index = createPostgresIndex(db.pool);
  const listenerRows = index.addedDocumentSql({ collectionId, dockey, doc: parsed.value });
  return { dockey, doc: parsed.value.json, listenerRows };
}

const stored = (c: TestCollection) => storedCounts(db.pool, c);

describe('the grouping (store)', () => {
  test('When adds arrive while their collection has a statement under way, the next statement takes up to the group maximum of them', async () => {
    const c = await newCollection(app);
    const seen = countingPool();
    const adds = createGroupedAdds({ db: seen.pool, statementsPerCollection: 1, maxGroup: 16 });
    const refs = await Promise.all(
      Array.from({ length: 32 }, (_, i) => adds.add(c.cid, newDocument(c.cid, `d${i}`))),
    );
    expect(seen.sizes).toEqual([1, 16, 15]);
    expect(refs.map((r) => r?.dockey)).toEqual(Array.from({ length: 32 }, (_, i) => `d${i}`));
    expect(new Set(refs.map((r) => r!.id)).size).toBe(32);
    expect(refs.every((r) => r!.version === '1')).toBe(true);
    expect(await stored(c)).toEqual({ documents: 32, pending: 32, counted: 32 });
  });

  test('When an add arrives alone, it is sent at once in a statement of its own', async () => {
    const c = await newCollection(app);
    const seen = countingPool();
    const adds = createGroupedAdds({ db: seen.pool, statementsPerCollection: 2, maxGroup: 16 });
    expect((await adds.add(c.cid, newDocument(c.cid, 'alone')))?.dockey).toBe('alone');
    expect(seen.sizes).toEqual([1]);
  });

  test('When a dockey of a group is already in the collection, that add answers null and the others are stored', async () => {
    const c = await newCollection(app);
    const seen = countingPool();
    const adds = createGroupedAdds({ db: seen.pool, statementsPerCollection: 1, maxGroup: 16 });
    await adds.add(c.cid, newDocument(c.cid, 'there'));
    const refs = await Promise.all(
      ['first', 'a', 'there', 'b'].map((k) => adds.add(c.cid, newDocument(c.cid, k))),
    );
    expect(seen.sizes).toEqual([1, 1, 3]);
    expect(refs.map((r) => r?.dockey ?? null)).toEqual(['first', 'a', null, 'b']);
    expect(await stored(c)).toEqual({ documents: 4, pending: 4, counted: 4 });
  });

  test('When two adds of one dockey wait together, they go in different statements: the first is stored, the second answers null', async () => {
    const c = await newCollection(app);
    const seen = countingPool();
    const adds = createGroupedAdds({ db: seen.pool, statementsPerCollection: 1, maxGroup: 16 });
    const refs = await Promise.all(
      ['first', 'same', 'x', 'same', 'y'].map((k) => adds.add(c.cid, newDocument(c.cid, k))),
    );
    expect(seen.sizes).toEqual([1, 3, 1]);
    expect(refs.map((r) => r?.dockey ?? null)).toEqual(['first', 'same', 'x', null, 'y']);
    expect(await stored(c)).toEqual({ documents: 4, pending: 4, counted: 4 });
  });

  test('When a group does not fit in the collection, each add is sent again alone: the first ones fill the room, the rest are NoDocumentSlot', async () => {
    const c = await newCollection(app, { max_documents: 5 });
    const seen = countingPool();
    const adds = createGroupedAdds({ db: seen.pool, statementsPerCollection: 1, maxGroup: 16 });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => adds.add(c.cid, newDocument(c.cid, `d${i}`))),
    );
    // 1 alone, the group of 7 refused whole, then its 7 again one by one
    expect(seen.sizes).toEqual([1, 7, 1, 1, 1, 1, 1, 1, 1]);
    const answers = outcomes.map((o) =>
      o.status === 'fulfilled' ? o.value?.dockey : (o.reason as NoDocumentSlot).why,
    );
    expect(answers).toEqual(['d0', 'd1', 'd2', 'd3', 'd4', 'full', 'full', 'full']);
    expect(await stored(c)).toEqual({ documents: 5, pending: 5, counted: 5 });
  });

  test('When one document of a group fails its statement, the others are stored and it alone fails with AddStatementFailed', async () => {
    const c = await newCollection(app);
    const adds = createGroupedAdds({ db: db.pool, statementsPerCollection: 1, maxGroup: 16 });
    const failing: NewDocument = {
      ...newDocument(c.cid, 'bad'),
      // a listener's rows that PostgreSQL refuses (documents.collection_id is NOT NULL)
      listenerRows: [
        (_param, added) =>
          `INSERT INTO documents (collection_id, dockey, doc) SELECT NULL, 'x', '{}' FROM ${added}`,
      ],
    };
    const outcomes = await Promise.allSettled([
      adds.add(c.cid, newDocument(c.cid, 'first')),
      adds.add(c.cid, newDocument(c.cid, 'a')),
      adds.add(c.cid, failing),
      adds.add(c.cid, newDocument(c.cid, 'b')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(AddStatementFailed);
    expect(await stored(c)).toEqual({ documents: 3, pending: 3, counted: 3 });
  });

  test('When two statements add the same dockeys in opposite orders at once, one stores them and the other answers null, without a deadlock', async () => {
    const c = await newCollection(app);
    for (let round = 0; round < 10; round++) {
      const keys = Array.from({ length: 6 }, (_, i) => `r${round}-${i}`);
      const [one, two] = await Promise.all([
        addInOneStatement(
          db.pool,
          c.cid,
          keys.map((k) => newDocument(c.cid, k)),
        ),
        addInOneStatement(
          db.pool,
          c.cid,
          [...keys].reverse().map((k) => newDocument(c.cid, k)),
        ),
      ]);
      const storedBy = keys.map((_, i) => [one[i] !== null, two[keys.length - 1 - i] !== null]);
      expect(storedBy.every(([a, b]) => a !== b)).toBe(true);
    }
    expect(await stored(c)).toEqual({ documents: 60, pending: 60, counted: 60 });
  });

  test('When adds of two collections wait at once, no statement mixes them', async () => {
    const [c1, c2] = [await newCollection(app), await newCollection(app)];
    const seen = countingPool();
    const adds = createGroupedAdds({ db: seen.pool, statementsPerCollection: 1, maxGroup: 16 });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const c = i % 2 ? c1 : c2;
        return adds.add(c.cid, newDocument(c.cid, `d${i}`));
      }),
    );
    expect(seen.sizes).toEqual([1, 1, 9, 9]);
    expect([...seen.collections].sort()).toEqual([c1.cid, c1.cid, c2.cid, c2.cid].sort());
    expect(await stored(c1)).toEqual({ documents: 10, pending: 10, counted: 10 });
    expect(await stored(c2)).toEqual({ documents: 10, pending: 10, counted: 10 });
  });
});

describe('takeGroup', () => {
  const queue = (...keys: string[]) => keys.map((dockey) => ({ doc: { dockey } }));
  const keys = (q: { doc: { dockey: string } }[]) => q.map((a) => a.doc.dockey);

  test('When the queue is longer than the maximum, the group is its first adds in order and the rest stay', () => {
    const q = queue('a', 'b', 'c', 'd');
    expect(keys(takeGroup(q, 3))).toEqual(['a', 'b', 'c']);
    expect(keys(q)).toEqual(['d']);
  });

  test('When a dockey comes twice, the second stays in the queue at its place for the next group', () => {
    const q = queue('a', 'b', 'a', 'c', 'b', 'a');
    expect(keys(takeGroup(q, 16))).toEqual(['a', 'b', 'c']);
    expect(keys(q)).toEqual(['a', 'b', 'a']);
    expect(keys(takeGroup(q, 16))).toEqual(['a', 'b']);
    expect(keys(takeGroup(q, 16))).toEqual(['a']);
    expect(q).toEqual([]);
  });
});

describe('adds over HTTP, grouped', () => {
  test('When 40 adds of one collection arrive at once, each answers its own outcome: stored, already exists, or index max reached', async () => {
    const app1 = makeApp(db, { env: { SEARCH_ADD_STATEMENTS_PER_COLLECTION: '1' } });
    const c = await newCollection(app1, { max_documents: 30 });
    const api = client(app1, c);
    expect((await api.add('there', docJson())).text).toBe('OK');
    const dockeys = Array.from({ length: 40 }, (_, i) => (i % 10 === 5 ? 'there' : `d${i}`));
    const answers = await Promise.all(dockeys.map((k) => api.add(k, docJson())));
    const texts = answers.map((r) => r.text);
    expect(texts.filter((t) => t === SEARCH_ERRORS.add.alreadyExists.text)).toHaveLength(4);
    expect(texts.filter((t) => t === 'OK')).toHaveLength(29);
    expect(texts.filter((t) => t === SEARCH_ERRORS.add.indexMaxReached.text)).toHaveLength(7);
    expect(await stored(c)).toEqual({ documents: 30, pending: 30, counted: 30 });
    const res = await api.search({ q: 'title' });
    expect(JSON.parse(res.text).numfound).toBe(30);
  });
});
