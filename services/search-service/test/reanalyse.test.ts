import { ANALYSER_VERSION, distinctTerms } from '../src/index/analyser';
import { dropIndex } from '../src/index/postgres/write/change-store';
import { createPostgresIndex } from '../src/index/postgres/postgres-index';
import { createReanalysis } from '../src/index/postgres/write/reanalyse';
import { appWithCollection, useSearchDatabase, type TestDatabase } from './helpers/harness';

/**
 * An index made by the analyser of version 1 (syllable bigrams only) is re-analysed: every
 * stored document gets this version's terms, so a particle query finds the old documents.
 */

let db: TestDatabase;
useSearchDatabase((opened) => (db = opened));

const DOCS: Array<[dockey: string, title: string, body: string]> = [
  ['book', '책을 읽었다', '오늘 도서관에서'],
  ['palace', '경복궁의 야경', '밤에 방문했다'],
  ['tower', '남산타워', '서울 야경 명소'],
];

/**
 * A collection whose index holds what version 1 wrote, folded and pending (or, with
 * `fold` false, all pending), and says so.
 */
async function indexOfVersionOne(fold = true) {
  const index = createPostgresIndex(db.pool, { autoFold: false, foldMinBatch: 1 });
  const { app, c, api } = await appWithCollection(db, {}, { index });
  for (const [dockey, title, body] of DOCS) {
    const doc = { icontents_title: title, icontents_body: body, score_regdate: 1_700_000_000 };
    expect((await api.add(dockey, JSON.stringify(doc))).status).toBe(200);
    await db.pool.query(
      `UPDATE search_pending p SET title_terms = $2, terms = $3
         FROM documents d WHERE d.id = p.doc_id AND d.collection_id = $1 AND d.dockey = $4`,
      [
        c.cid,
        distinctTerms([title], { bigramOnly: true }),
        distinctTerms([title, body], { bigramOnly: true }),
        dockey,
      ],
    );
    // the first two folded into a segment, the last one pending
    if (fold && dockey === 'palace') await index.folder.round();
  }
  await db.pool.query(
    `UPDATE search_analyser SET version = 1, target = NULL, done_collection = '', done_doc = 0`,
  );
  const found = async (q: string) => {
    const res = await api.search({ q, sort: 1 });
    expect(res.status).toBe(200);
    return (JSON.parse(res.text).docs as Array<{ dockey: string }>).map((d) => d.dockey);
  };
  return { app, c, index, found };
}

async function analyserState() {
  const { rows } = await db.pool.query(
    `SELECT version, target, done_collection, done_doc::text FROM search_analyser`,
  );
  return rows[0];
}

afterEach(async () => {
  // every test starts from a database whose documents are gone
  await db.pool.query(`DELETE FROM documents`);
  await db.pool.query(`UPDATE search_analyser SET version = $1, target = NULL`, [ANALYSER_VERSION]);
});

test('When the index was made by analyser version 1, re-analysis gives every stored document the terms of this version', async () => {
  const { index, found } = await indexOfVersionOne();
  expect(await found('책은')).toEqual([]);
  expect(await found('책')).toEqual([]);

  expect(await index.reanalysis.run()).toBe(DOCS.length);

  expect(await found('책은')).toEqual(['book']);
  expect(await found('경복궁에서')).toEqual(['palace']);
  expect(await found('야경')).toEqual(['tower', 'palace']);
  await index.folder.round();
  expect(await found('책은')).toEqual(['book']);
  expect(await found('야경')).toEqual(['tower', 'palace']);
  expect(await analyserState()).toEqual({
    version: ANALYSER_VERSION,
    target: null,
    done_collection: '',
    done_doc: '0',
  });
});

test('When the index is of this version, re-analysis does nothing', async () => {
  const { index } = await indexOfVersionOne();
  await index.reanalysis.run();
  expect(await index.reanalysis.run()).toBe(0);
});

test('When a re-analysis stopped midway, the next one goes on after the last document done', async () => {
  const { c, index, found } = await indexOfVersionOne();
  const { rows } = await db.pool.query(
    `SELECT id::text FROM documents WHERE collection_id = $1 ORDER BY id`,
    [c.cid],
  );
  await db.pool.query(
    `UPDATE search_analyser SET target = $1, done_collection = $2, done_doc = $3`,
    [ANALYSER_VERSION, c.cid, rows[0].id],
  );
  expect(await index.reanalysis.run()).toBe(DOCS.length - 1);
  // the first document counts as done: it keeps the terms it had
  expect(await found('책은')).toEqual([]);
  expect(await found('경복궁에서')).toEqual(['palace']);
});

test('When a collection is deleted while a batch waits for it, the batch writes nothing for it and goes on to the next', async () => {
  const doomed = await indexOfVersionOne();
  const { found } = await indexOfVersionOne();
  // the admin API's deletion: the index first (its fold lock alone), then the collection
  const deleting = await db.pool.connect();
  try {
    await deleting.query('BEGIN');
    await dropIndex(deleting, doomed.c.cid);
    await deleting.query('DELETE FROM collections WHERE id = $1', [doomed.c.cid]);
    const running = doomed.index.reanalysis.run();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await deleting.query('COMMIT');
    expect(await running).toBe(DOCS.length);
  } finally {
    deleting.release();
  }
  const { rows } = await db.pool.query(
    'SELECT count(*)::int AS n FROM search_pending WHERE collection_id = $1',
    [doomed.c.cid],
  );
  expect(rows[0].n).toBe(0);
  expect(await found('책은')).toEqual(['book']);
  expect((await analyserState()).version).toBe(ANALYSER_VERSION);
});

test('When a collection is deleted while a batch re-analyses it, the deletion waits and removes what the batch wrote', async () => {
  const doomed = await indexOfVersionOne(false);
  let reached!: () => void;
  const inBatch = new Promise<void>((resolve) => (reached = resolve));
  let resume!: () => void;
  const resumed = new Promise<void>((resolve) => (resume = resolve));
  // a pool whose transactions stop before writing the doomed collection's first new terms
  const pool = new Proxy(db.pool, {
    get(target, prop) {
      if (prop !== 'connect') {
        const value = Reflect.get(target, prop);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async () => {
        const client = await target.connect();
        return new Proxy(client, {
          get(c, p) {
            const value = Reflect.get(c, p);
            if (p !== 'query') return typeof value === 'function' ? value.bind(c) : value;
            return async (...args: Parameters<typeof c.query>) => {
              const sql = args[0] as string | { text: string; values?: unknown[] };
              if (typeof sql === 'object' && /INSERT INTO search_pending/.test(sql.text)) {
                reached();
                await resumed;
              }
              return (c.query as (...a: unknown[]) => Promise<unknown>)(...args);
            };
          },
        });
      };
    },
  });
  const logger = { info() {}, warn() {}, error() {} };
  const running = createReanalysis({ pool, logger }).run();
  await inBatch;
  let deleted = false;
  const deleting = (async () => {
    const tx = await db.pool.connect();
    try {
      await tx.query('BEGIN');
      await dropIndex(tx, doomed.c.cid);
      await tx.query('DELETE FROM collections WHERE id = $1', [doomed.c.cid]);
      await tx.query('COMMIT');
      deleted = true;
    } finally {
      tx.release();
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(deleted).toBe(false);
  resume();
  await Promise.all([running, deleting]);
  const { rows } = await db.pool.query(
    'SELECT count(*)::int AS n FROM search_pending WHERE collection_id = $1',
    [doomed.c.cid],
  );
  expect(rows[0].n).toBe(0);
});

test('When two instances re-analyse at once, each document is re-analysed once', async () => {
  await indexOfVersionOne();
  const logger = { info() {}, warn() {}, error() {} };
  const make = () => createReanalysis({ pool: db.pool, logger, batchSize: 1 });
  const counts = await Promise.all([make().run(), make().run()]);
  expect(counts[0] + counts[1]).toBe(DOCS.length);
  expect((await analyserState()).version).toBe(ANALYSER_VERSION);
});

test('When the engine starts on an index of another analyser version, it re-analyses in the background', async () => {
  const { found } = await indexOfVersionOne();
  // what the README tells an operator to run to re-analyse on purpose
  await db.pool.query('UPDATE search_analyser SET version = 0, target = NULL;');
  const running = createPostgresIndex(db.pool, { foldIdleMs: 10 });
  running.start();
  try {
    for (let i = 0; i < 200 && (await analyserState()).version !== ANALYSER_VERSION; i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect((await analyserState()).version).toBe(ANALYSER_VERSION);
    expect(await found('책은')).toEqual(['book']);
  } finally {
    await running.stop();
  }
});
