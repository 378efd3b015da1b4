import { createPostgresIndex } from '../src/index/postgres/postgres-index';
import {
  answerOf,
  expected,
  makeDoc,
  modelCollection,
  random,
  searchParams,
  WORDS,
  type ModelQuery,
} from './helpers/engine-model';
import { client, foldAll, makeApp, smallSegmentsApp, useSearchDatabase } from './helpers/harness';

/**
 * prefix=1 on the Postgres engine, as a property: for random prefixes of the model's words
 * (1 character up to the whole word, Hangul and Latin, alone or after a whole word; sort 0 and
 * 1; with facets now and then) over a collection changed at random across folds and merges
 * (row segments, packed segments, the pending tail), numfound, the page and the facet counts
 * are what brute force with the prefix rule (index/prefix-expansion.ts) gives.
 */

const db = useSearchDatabase();

function randomQuery(rand: () => number): ModelQuery {
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  const word = Array.from(pick());
  const typed = word.slice(0, 1 + Math.floor(rand() * word.length)).join('');
  return {
    q: rand() < 0.7 ? typed : `${pick()} ${typed}`,
    sort: rand() < 0.5 ? 0 : 1,
    start: rand() < 0.8 ? 0 : Math.floor(rand() * 30),
    len: 10,
    prefix: true,
    facet: rand() < 0.3,
  };
}

test('When documents are added, changed and deleted across folds and merges, prefix=1 answers what brute force with the prefix rule finds', async () => {
  const { index, app, c, api } = await smallSegmentsApp(db, { max_documents: 10_000 });
  const rand = random(0x9e1f);
  const m = modelCollection(db.pool, api, c, rand);
  const queries = Array.from({ length: 50 }, () => randomQuery(rand));

  const check = async (state: string, search = api.search) => {
    for (const p of queries) {
      const got = answerOf((await search(searchParams(p))).text);
      expect({ state, ...p, ...got }).toEqual({ state, ...p, ...expected(m.model, m.ids, p) });
    }
  };

  await m.add(100, () => makeDoc(rand));
  await check('all pending');
  await foldAll(index);
  await check('folded and merged');
  await m.change();
  await m.add(20, () => makeDoc(rand));
  await check('changes and documents pending');
  await foldAll(index);
  await check('changes folded');

  // another instance on the same tables, with a cache too small to keep a list
  const tiny = makeApp(db, { index: createPostgresIndex(db.pool, { cacheBytes: 4 * 1024 }) });
  await check('another instance, 4 KiB cache', (params) => client(tiny, c).search(params));
  await app.services.close();
}, 180_000);
