import { bitsetsMade } from '../src/index/postgres/format/bitset';
import { createPostgresIndex } from '../src/index/postgres/postgres-index';
import {
  answerOf,
  expected,
  modelCollection,
  random,
  searchParams,
  WORDS,
  type ModelDoc,
  type ModelQuery,
} from './helpers/engine-model';
import { client, foldAll, makeApp, smallSegmentsApp, useSearchDatabase } from './helpers/harness';

/**
 * facet=categories on the Postgres engine, as a property: for random queries (words, ca, ex_ca,
 * dates, pages) over a collection changed at random across folds and merges, the counts per
 * category are what brute force over the documents counts (ca ignored), the rest of the answer
 * is what it is without facets, and a search still makes at most four bitsets.
 */

const db = useSearchDatabase();

/** 0–3 categories of 0..119 (a value may repeat), so the collection has more than 64 of them */
function facetDoc(rand: () => number): ModelDoc {
  const words = (n: number) =>
    Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
  const categories = Array.from({ length: Math.floor(rand() * 4) }, () => Math.floor(rand() * 120));
  if (categories.length && rand() < 0.2) categories.push(categories[0]!);
  return {
    title: words(1 + Math.floor(rand() * 2)),
    body: words(2 + Math.floor(rand() * 4)),
    regdate: 1_700_000_000 + Math.floor(rand() * 20) * 3600,
    categories,
  };
}

function randomQuery(rand: () => number): ModelQuery {
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  const some = (n: number) => Array.from({ length: n }, () => Math.floor(rand() * 130));
  const hour = (h: number) => 1_700_000_000 + h * 3600;
  const p: ModelQuery = {
    q: rand() < 0.7 ? pick() : `${pick()} ${pick()}`,
    sort: rand() < 0.5 ? 0 : 1,
    start: rand() < 0.7 ? 0 : Math.floor(rand() * 30),
    len: 10,
    facet: true,
  };
  if (rand() < 0.4) p.ca = some(1 + Math.floor(rand() * (rand() < 0.2 ? 100 : 4)));
  if (rand() < 0.3) p.exCa = some(1 + Math.floor(rand() * 10));
  const from = Math.floor(rand() * 12);
  if (rand() < 0.3) p.from = hour(from);
  if (rand() < 0.3) p.to = hour(from + Math.floor(rand() * 8));
  return p;
}

test('When documents are added, changed and deleted across folds and merges, every facet count is what brute force counts', async () => {
  const { index, app, c, api } = await smallSegmentsApp(db, { max_documents: 10_000 });
  const rand = random(0xfac7);
  const m = modelCollection(db.pool, api, c, rand);
  const queries = Array.from({ length: 60 }, () => randomQuery(rand));

  const check = async (state: string, search = api.search) => {
    for (const p of queries) {
      const made = bitsetsMade();
      const res = await search(searchParams(p));
      const bitsets = bitsetsMade() - made;
      const got = { ...answerOf(res.text), bitsets };
      const want = { ...expected(m.model, m.ids, p), bitsets: bitsets <= 4 ? bitsets : '≤ 4' };
      expect({ state, ...p, ...got }).toEqual({ state, ...p, ...want });
      // the same search without facet answers the same numfound and page
      const without = { ...p, facet: false };
      const plain = answerOf((await search(searchParams(without))).text);
      expect({ state, ...without, ...plain }).toEqual({
        state,
        ...without,
        ...expected(m.model, m.ids, without),
      });
    }
  };

  await m.add(120, () => facetDoc(rand));
  await check('all pending');
  await foldAll(index);
  await check('folded and merged');
  await m.change();
  await check('changes pending, tombstones not applied');
  await m.add(40, () => facetDoc(rand));
  await foldAll(index);
  await check('changes folded');
  await m.change();
  await m.add(5, () => facetDoc(rand));
  await foldAll(index);
  await m.add(5, () => facetDoc(rand));
  await check('second round folded, a few pending');

  // another instance on the same tables, with a cache too small to keep a list: same counts
  const tiny = makeApp(db, { index: createPostgresIndex(db.pool, { cacheBytes: 4 * 1024 }) });
  await check('another instance, 4 KiB cache', (params) => client(tiny, c).search(params));
  await app.services.close();
}, 180_000);
