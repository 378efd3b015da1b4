import { bitsetsMade } from '../src/index/postgres/format/bitset';
import {
  modelApp,
  modelCollection,
  modelIndex,
  random,
  searchParams,
  statusAndAnswer,
  type ModelQuery,
} from './helpers/engine-model';
import {
  call,
  client,
  foldAll,
  makeApp,
  newCollection,
  recordingPool,
  useSearchDatabase,
} from './helpers/harness';

/**
 * One search does bounded work whatever its parameters: a listed category or a query term no
 * document has costs no bitset, repeated values count once, and a search holds at most four
 * bitsets (bitset.ts counts every bitset made; the engine makes them in-process here).
 */

const db = useSearchDatabase();

/** 100,000 category numbers: 2 and 4 repeated ~16,000 times each, the rest in no document. */
const HOSTILE_CA = Array.from({ length: 100_000 }, (_, i) =>
  i % 3 === 0 ? 2 + (i % 2) * 2 : 5_000_000 + i,
);

/** 340 distinct Hangul syllable pairs in one run: 1,023 UTF-8 bytes */
const KOREAN = Array.from({ length: 341 }, (_, i) => String.fromCharCode(0xac00 + i * 7)).join('');

/**
 * A model app whose engine's pool records its named queries (`seen`), and `search`: over HTTP
 * (a form body), with the bitsets it made.
 */
async function recordedApp(seed: number) {
  const recording = recordingPool(db.pool);
  const index = modelIndex(recording.pool);
  const { app, c, want, ...m } = await modelApp(db, index, seed);
  await m.add(150);
  // documents with every term of the long queries below (folded, then one pending)
  const long = () => ({
    title: KOREAN,
    body: `${KOREAN} fox`,
    regdate: 1_700_000_000,
    categories: [2],
  });
  await m.add(3, long);
  await foldAll(index);
  await m.add(1, long);
  await m.change(); // tombstones and changed documents pending
  await m.add(10);
  /** the answer over HTTP (a form body: a 100,000-value ca is no query string) and bitsets made */
  const search = async (p: ModelQuery) => {
    const made = bitsetsMade();
    const res = await call(
      app,
      'get',
      `/v2/${c.cid}/search/json`,
      { apikey: c.apikey, ...searchParams(p) },
      'body',
    );
    return { ...statusAndAnswer(res), bitsets: bitsetsMade() - made };
  };
  return { search, want, seen: recording.seen, index };
}

describe('a search lists 100,000 categories', () => {
  test('When a search lists 100,000 categories (most in no document, the rest repeated), it makes at most 4 bitsets and answers what brute force answers', async () => {
    const { search, want } = await recordedApp(0xca7);
    for (const p of [
      { q: '서울', sort: 0, start: 0, len: 10, ca: HOSTILE_CA },
      { q: 'fox', sort: 1, start: 5, len: 20, ca: HOSTILE_CA, exCa: [3, 3, 3] },
    ] satisfies ModelQuery[]) {
      const { bitsets, ...answer } = await search(p);
      expect(answer).toEqual(want(p));
      expect(bitsets).toBeLessThanOrEqual(4);
    }
  }, 60_000);

  test('When a search lists 100,000 categories, the snapshot SQL is sent no category list and Postgres is asked only for lists of categories some document has', async () => {
    const { search, want, seen } = await recordedApp(0xca8);
    const p: ModelQuery = { q: '바다', sort: 0, start: 0, len: 10, ca: HOSTILE_CA };
    seen.length = 0;
    const { bitsets, ...answer } = await search(p);
    expect(answer).toEqual(want(p));
    expect(bitsets).toBeLessThanOrEqual(4);
    // the snapshot statement takes the collection, the pending rows held, the documents of the
    // page expected (none: the query was never asked) and the lists it lacks of q's terms,
    // never a category
    const snapshots = seen.filter((q) => q.name === 'bitmap-snapshot-read');
    expect(snapshots.map((q) => q.values.length)).toEqual([6]);
    expect(snapshots[0]!.values[2]).toEqual([]);
    expect((snapshots[0]!.values[4] as string[]).filter((kind) => kind === 'c')).toEqual([]);
    const asked = seen
      .filter((q) => q.name === 'bitmap-postings-found')
      .flatMap((q) =>
        (q.values[1] as string[]).map((kind, i) => kind + (q.values[2] as string[])[i]),
      );
    expect(asked.length).toBeGreaterThan(0); // the row segments' lists were read
    const wanted = ['w바다', 't바다', 'c2', 'c4']; // q's word and title term, the categories held
    expect(asked.filter((k) => !wanted.includes(k))).toEqual([]);
  }, 60_000);
});

describe('long queries', () => {
  /** 512 one-letter words, 26 distinct terms: 1,023 bytes */
  const LETTERS = Array.from({ length: 512 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(
    ' ',
  );

  test.each([
    ['340 distinct Korean bigrams (in four documents)', KOREAN],
    ['512 one-letter words', LETTERS],
    ['a known word and 340 bigrams no document has', `서울 ${KOREAN.slice(0, 300)}`],
  ])(
    'When q is 1,024 bytes of %s, the search makes at most 4 bitsets and answers what brute force answers',
    async (_, q) => {
      const { search, want } = await recordedApp(0x10e9);
      for (const p of [
        { q, sort: 0, start: 0, len: 10 },
        { q, sort: 1, start: 990, len: 10 },
      ] satisfies ModelQuery[]) {
        const { bitsets, ...answer } = await search(p);
        expect(answer).toEqual(want(p));
        expect(bitsets).toBeLessThanOrEqual(4);
      }
    },
    60_000,
  );
});

describe('cache eviction', () => {
  test.each([
    ['4 KiB (less than one deleted bitmap)', 4 * 1024],
    ['48 KiB (a few lists and bitmaps)', 48 * 1024],
  ])(
    'When the index cache is %s and many collections are searched at once, every search answers 200 and what brute force answers',
    async (_, cacheBytes) => {
      const index = modelIndex(db.pool, cacheBytes);
      const app = makeApp(db, { index });
      const models = await Promise.all(
        Array.from({ length: 5 }, async (_, i) => {
          const c = await newCollection(app, { max_documents: 10_000 });
          const m = modelCollection(db.pool, client(app, c), c, random(0xe71c + i));
          await m.add(60);
          return m;
        }),
      );
      await foldAll(index);
      for (const m of models) await m.change();
      await foldAll(index); // deleted bitmaps
      for (const m of models) await m.change(); // tombstones and pending changes
      const queries: ModelQuery[] = ['서울', '바다 fox', 'quick', '커피', 'tea'].flatMap((q) => [
        { q, sort: 0, start: 0, len: 10 },
        { q, sort: 1, start: 0, len: 10, ca: [1, 2] },
        { q, sort: 0, start: 5, len: 10, exCa: [3] },
      ]);
      for (let round = 0; round < 3; round++) {
        const answers = await Promise.all(
          models.flatMap((m) =>
            queries.map(async (p) => ({ got: await m.search(p), want: m.want(p) })),
          ),
        );
        expect(answers.map((a) => a.got)).toEqual(answers.map((a) => a.want));
      }
    },
    120_000,
  );
});
