import type pg from 'pg';
import { createMetrics } from '@hub/service-kit';
import { distinctTerms, queryTerms } from '../src/index/analyser';
import { newBitset, setBits } from '../src/index/postgres/bitset';
import { CollectionView } from '../src/index/postgres/collection-view';
import {
  decodeOffsets,
  encodePostings,
  orPostingsInto,
} from '../src/index/postgres/postings-codec';
import {
  createPostgresIndex,
  type PostgresSearchIndex,
} from '../src/index/postgres/postgres-index';
import {
  packedKey,
  PackedSegment,
  packPostings,
  unpackPostings,
} from '../src/index/postgres/packed-segment';
import { levelOf, MERGE_FACTOR, pickMerge } from '../src/index/postgres/segment-builder';
import { adminApi } from './helpers/admin';
import { appWithCollection, makeApp, newCollection, useSearchDatabase } from './helpers/harness';
import { client, type TestCollection } from './helpers/requests';

/** The Postgres engine below the contract: its codec, orders, merges, folds and failures. */

describe('posting lists', () => {
  test.each([
    ['sparse in a small segment (uint16 offsets)', [0, 5, 65_535], 65_536],
    ['sparse in a large segment (uint32 offsets)', [0, 70_000, 99_999], 100_000],
    ['dense (bitmap)', Array.from({ length: 600 }, (_, i) => i * 3), 2_000],
  ])('When a list is %s, it decodes to the same offsets', (_, offsets, length) => {
    const data = encodePostings(offsets, length);
    expect(decodeOffsets(data)).toEqual(offsets);
    for (const base of [0, 1, 31, 32, 45]) {
      const bits = newBitset(base + length);
      orPostingsInto(data, base, bits);
      expect(setBits(bits)).toEqual(offsets.map((o) => o + base));
    }
  });

  test('When a list is dense, its stored form is the bitmap (never larger than the segment / 8)', () => {
    const all = Array.from({ length: 1000 }, (_, i) => i);
    expect(encodePostings(all, 1000).length).toBe(4 + 128);
  });
});

describe('packed segments', () => {
  const terms = [
    '서울',
    '울에',
    'seoul',
    'a',
    '',
    '🙂x',
    'ﬁ',
    ...Array.from({ length: 3000 }, (_, i) => `t${i}`),
  ];
  const lists = terms.flatMap((term, i) =>
    (['w', 't'] as const).map((kind) => ({
      kind,
      term,
      data: encodePostings(
        [i % 4096, 4095 - (i % 7)].sort((a, b) => a - b),
        4096,
      ),
    })),
  );
  const packed = packPostings([
    ...lists,
    { kind: 'c', term: '7', data: encodePostings([1], 4096) },
  ]);

  test('When a search looks a key up in a packed segment, it finds exactly the list that was packed', () => {
    const segment = new PackedSegment(packed);
    const unpacked = unpackPostings(packed);
    for (const l of lists) {
      expect(segment.get(packedKey(l.kind, l.term))).toEqual(l.data);
      expect(unpacked.get(l.kind + l.term)).toEqual(l.data);
    }
    expect(decodeOffsets(segment.get(packedKey('c', '7'))!)).toEqual([1]);
  });

  test('When a key is not in a packed segment (another term, kind or spelling), the lookup finds nothing', () => {
    const segment = new PackedSegment(packed);
    for (const [kind, term] of [
      ['w', '서울에'],
      ['c', '서울'],
      ['t', 't3000'],
      ['w', 'T1'],
      ['c', '8'],
    ] as const) {
      expect(segment.get(packedKey(kind, term))).toBeUndefined();
    }
    expect(new PackedSegment(Buffer.alloc(0)).get(packedKey('w', 'a'))).toBeUndefined();
  });

  test('When a packed segment is cached, its size counts the value and its table (a power of two of at least twice the lists, 4 bytes each)', () => {
    // 6,015 lists → 16,384 slots
    expect(new PackedSegment(packed).bytes).toBe(packed.length + 16_384 * 4 + 128);
  });
});

describe('collection view', () => {
  test('When segments are appended, the order is regdate descending, then documents.id descending', () => {
    const view = new CollectionView('c', '1');
    view.append(0, [10, 11, 12], [500, 700, 500]);
    view.append(3, [13, 9], [600, 700]);
    expect(Array.from(view.order.subarray(0, view.size))).toEqual([1, 4, 3, 2, 0]);
    expect(Array.from(view.rank.subarray(0, view.size))).toEqual([4, 0, 3, 2, 1]);
    expect(view.positions(600, 700)).toEqual([0, 3]);
    expect(view.positions(null, 599)).toEqual([3, 5]);
    expect(view.positions(701, null)).toEqual([0, 0]);
  });

  test('When a merged segment covers numbers already loaded, only the new ones are added', () => {
    const view = new CollectionView('c', '1');
    view.append(0, [1, 2], [1, 2]);
    view.append(0, [1, 2, 3], [1, 2, 3]);
    expect(view.size).toBe(3);
    expect(Array.from(view.order.subarray(0, 3))).toEqual([2, 1, 0]);
  });
});

describe('merge policy', () => {
  const seg = (docCount: number, firstDocno = 0) => ({ firstDocno, docCount });

  test('When MERGE_FACTOR neighbours share a level, they merge; mixed levels do not', () => {
    const small = Array.from({ length: MERGE_FACTOR }, () => seg(100));
    expect(pickMerge(small)).toEqual([0, MERGE_FACTOR]);
    expect(pickMerge([seg(5000), ...small.slice(1)])).toBeNull();
    expect(pickMerge([seg(5000), ...small])).toEqual([1, MERGE_FACTOR + 1]);
  });

  test('When a merge would pass the largest segment size, it does not happen', () => {
    expect(levelOf(100_000)).toBe(levelOf(120_000));
    expect(pickMerge(Array.from({ length: MERGE_FACTOR }, () => seg(100_000)))).toBeNull();
  });
});

// ------------------------------------------------------------------ engine against a model

const db = useSearchDatabase();

interface ModelDoc {
  title: string;
  body: string;
  regdate: number;
  categories: number[];
}

const WORDS = ['서울', '부산에서', '맛집을', '바다', 'fox', 'lazy', 'Quick', '2024', '커피', 'tea'];

/** A deterministic random source (xorshift32), so a failure can be replayed. */
function random(seed: number) {
  let s = seed;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x100000000;
  };
}

function makeDoc(rand: () => number): ModelDoc {
  const words = (n: number) =>
    Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
  return {
    title: words(1 + Math.floor(rand() * 2)),
    body: words(2 + Math.floor(rand() * 4)),
    regdate: 1_700_000_000 + Math.floor(rand() * 20) * 3600,
    categories: [...new Set([1 + Math.floor(rand() * 4), 1 + Math.floor(rand() * 4)])],
  };
}

const json = (d: ModelDoc) =>
  JSON.stringify({
    icontents_title: d.title,
    icontents_body: d.body,
    score_regdate: d.regdate,
    categories: d.categories,
  });

/** What the engine must answer, computed from the model by brute force. */
function expected(
  model: Map<string, ModelDoc>,
  ids: Map<string, number>,
  p: {
    q: string;
    sort: 0 | 1;
    start: number;
    len: number;
    ca?: number[];
    exCa?: number[];
    from?: number;
    to?: number;
  },
) {
  const q = queryTerms(p.q);
  const hits = [...model].filter(([, d]) => {
    const terms = new Set(distinctTerms([d.title, d.body]));
    return (
      q.length > 0 &&
      q.every((t) => terms.has(t)) &&
      (!p.ca || d.categories.some((c) => p.ca!.includes(c))) &&
      (!p.exCa || !d.categories.some((c) => p.exCa!.includes(c))) &&
      (p.from === undefined || d.regdate >= p.from) &&
      (p.to === undefined || d.regdate <= p.to)
    );
  });
  const tier = (d: ModelDoc) => {
    const title = new Set(distinctTerms([d.title]));
    return p.sort === 0 && q.every((t) => title.has(t)) ? 0 : 1;
  };
  hits.sort(
    ([ka, a], [kb, b]) => tier(a) - tier(b) || b.regdate - a.regdate || ids.get(kb)! - ids.get(ka)!,
  );
  return { numfound: hits.length, keys: hits.slice(p.start, p.start + p.len).map(([k]) => k) };
}

async function foldAll(index: PostgresSearchIndex): Promise<void> {
  for (;;) {
    const r = await index.folder.round();
    if (!r.folded && !r.tombstones && !r.merged) return;
  }
}

test('When documents are added, changed and deleted across folds and merges, every search answers what brute force over the documents answers', async () => {
  const index = createPostgresIndex(db.pool, {
    foldBatchSize: 9,
    packedMaxDocs: 30,
    autoFold: false,
  });
  const { app, c, api } = await appWithCollection(db, { max_documents: 10_000 }, { index });
  const rand = random(0x5eed);
  const model = new Map<string, ModelDoc>();
  const ids = new Map<string, number>();

  const queries = () => {
    const out: Parameters<typeof expected>[2][] = [];
    for (const q of ['서울', '바다 fox', 'quick', '맛집', '부산', '2024 tea', '커피']) {
      out.push({ q, sort: 0, start: 0, len: 10 });
      out.push({ q, sort: 1, start: 5, len: 10 });
      out.push({ q, sort: 0, start: 0, len: 100, ca: [1, 2] });
      out.push({ q, sort: 0, start: 10, len: 10, exCa: [3] });
      out.push({
        q,
        sort: 1,
        start: 0,
        len: 10,
        from: 1_700_000_000 + 5 * 3600,
        to: 1_700_000_000 + 9 * 3600,
      });
      out.push({ q, sort: 0, start: 0, len: 20, from: 1_700_000_000 + 12 * 3600 });
    }
    return out;
  };
  const check = async (state: string) => {
    for (const p of queries()) {
      const res = await api.search({
        q: p.q,
        sort: p.sort,
        start: p.start,
        len: p.len,
        ca: p.ca?.join(','),
        ex_ca: p.exCa?.join(','),
        startdate: p.from,
        enddate: p.to,
      });
      const body = JSON.parse(res.text);
      const got = {
        numfound: body.numfound,
        keys: body.docs.map((d: { dockey: string }) => d.dockey),
      };
      expect({ state, ...p, ...got }).toEqual({ state, ...p, ...expected(model, ids, p) });
    }
  };
  const add = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const key = `k${model.size}-${i}`;
      const d = makeDoc(rand);
      expect((await api.add(key, json(d))).status).toBe(200);
      model.set(key, d);
    }
    const { rows } = await db.pool.query<{ dockey: string; id: string }>(
      'SELECT dockey, id::text FROM documents WHERE collection_id = $1',
      [c.cid],
    );
    for (const r of rows) ids.set(r.dockey, Number(r.id));
  };
  const change = async () => {
    const keys = [...model.keys()];
    for (let i = 0; i < 15; i++) {
      const key = keys[Math.floor(rand() * keys.length)]!;
      if (!model.has(key)) continue;
      const what = rand();
      if (what < 0.4) {
        expect((await api.delete(key)).status).toBe(200);
        model.delete(key);
      } else if (what < 0.8) {
        const d = makeDoc(rand);
        expect((await api.update(key, json(d))).status).toBe(200);
        model.set(key, d);
      } else {
        const regdate = 1_700_000_000 + Math.floor(rand() * 20) * 3600;
        expect((await api.updateField(key, 'score_regdate', String(regdate))).status).toBe(200);
        model.set(key, { ...model.get(key)!, regdate });
      }
    }
  };

  await add(120);
  await check('all pending');
  await foldAll(index);
  await check('folded and merged');
  await change();
  await check('changes pending, tombstones not applied');
  await add(40);
  await foldAll(index);
  await check('changes folded');
  await change();
  await foldAll(index);
  await check('second round of changes folded');
  const { rows } = await db.pool.query(
    `SELECT count(*)::int AS live FROM search_segments WHERE collection_id = $1 AND retired_at IS NULL`,
    [c.cid],
  );
  expect(rows[0].live).toBeLessThan(MERGE_FACTOR * 2); // merges happened
  const { rows: kinds } = await db.pool.query(
    `SELECT count(*) FILTER (WHERE packed IS NOT NULL)::int AS packed,
            count(*) FILTER (WHERE packed IS NULL)::int AS rows
     FROM search_segments WHERE collection_id = $1 AND retired_at IS NULL`,
    [c.cid],
  );
  expect(kinds[0].packed).toBeGreaterThan(0); // small segments: one value
  expect(kinds[0].rows).toBeGreaterThan(0); // merged past 30 documents: a row per term
  await app.services.close();
}, 120_000);

// ------------------------------------------------------------------ instances and faults

async function addDocs(api: ReturnType<typeof client>, n: number, prefix: string) {
  for (let i = 0; i < n; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, n - i) }, (_, j) =>
        api.add(
          `${prefix}${i + j}`,
          JSON.stringify({
            icontents_title: `item ${i + j}`,
            icontents_body: 'shared 공통',
            score_regdate: 1_700_000_000 + i + j,
          }),
        ),
      ),
    );
  }
}

async function indexCounts(cid: string) {
  const { rows } = await db.pool.query(
    `SELECT (SELECT count(*)::int FROM search_pending WHERE collection_id = $1) AS pending,
            (SELECT count(*)::int FROM search_docnos WHERE collection_id = $1) AS folded,
            (SELECT count(DISTINCT docno)::int FROM search_docnos WHERE collection_id = $1) AS numbers,
            (SELECT coalesce(sum(doc_count), 0)::int FROM search_segments
              WHERE collection_id = $1 AND retired_at IS NULL) AS in_segments`,
    [cid],
  );
  return rows[0] as { pending: number; folded: number; numbers: number; in_segments: number };
}

async function numfound(api: ReturnType<typeof client>, q: string): Promise<number> {
  return JSON.parse((await api.search({ q })).text).numfound;
}

/** indexCounts of a collection whose n documents are all folded. */
const foldedAll = (n: number) => ({ pending: 0, folded: n, numbers: n, in_segments: n });

test('When two instances fold one collection at the same time, every document is folded exactly once', async () => {
  const a = createPostgresIndex(db.pool, { foldBatchSize: 13, autoFold: false });
  const b = createPostgresIndex(db.pool, { foldBatchSize: 13, autoFold: false });
  const { app, c, api } = await appWithCollection(db, {}, { index: a });
  await addDocs(api, 300, 'd');
  await Promise.all([foldAll(a), foldAll(b), foldAll(a), foldAll(b)]);
  await foldAll(a);
  expect(await indexCounts(c.cid)).toEqual(foldedAll(300));
  expect(await numfound(api, 'shared')).toBe(300);
  await app.services.close();
});

test('When a fold is killed midway (its connection terminated), nothing is lost or doubled and the next fold resumes', async () => {
  const { app, c, api } = await appWithCollection(db);
  await addDocs(api, 100, 'k');
  // a pool whose fold connection is terminated by the server just before pending rows go
  const killing = new Proxy(db.pool, {
    get(target, prop, receiver) {
      if (prop === 'connect') {
        return async () => {
          const conn = await target.connect();
          return new Proxy(conn, {
            get(t, p, r) {
              if (p === 'query') {
                return async (q: unknown, ...rest: unknown[]) => {
                  if (typeof q === 'string' && q.startsWith('DELETE FROM search_pending')) {
                    const pid = (t as unknown as { processID: number }).processID;
                    await target.query('SELECT pg_terminate_backend($1)', [pid]);
                  }
                  return (t.query as (...a: unknown[]) => unknown).call(t, q, ...rest);
                };
              }
              const v = Reflect.get(t, p, r);
              return typeof v === 'function' ? v.bind(t) : v;
            },
          });
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  }) as pg.Pool;
  const doomed = createPostgresIndex(killing, { foldBatchSize: 40, autoFold: false });
  await expect(doomed.folder.round()).rejects.toThrow();
  expect(await indexCounts(c.cid)).toEqual({ pending: 100, folded: 0, numbers: 0, in_segments: 0 });
  expect(await numfound(api, 'shared')).toBe(100);

  const survivor = createPostgresIndex(db.pool, { foldBatchSize: 40, autoFold: false });
  await foldAll(survivor);
  expect(await indexCounts(c.cid)).toEqual(foldedAll(100));
  expect(await numfound(api, 'shared')).toBe(100);
  expect(await numfound(client(makeApp(db, { index: survivor }), c), '공통')).toBe(100);
  await app.services.close();
});

test('When another instance changes and folds, this instance sees it in its next search (cached lists are keyed by version)', async () => {
  const mine = createPostgresIndex(db.pool, { autoFold: false });
  const theirs = createPostgresIndex(db.pool, { autoFold: false });
  const appMine = makeApp(db, { index: mine });
  const appTheirs = makeApp(db, { index: theirs });
  const c: TestCollection = await newCollection(appMine);
  await addDocs(client(appTheirs, c), 50, 'x');
  await foldAll(theirs);
  expect(await numfound(client(appMine, c), 'shared')).toBe(50); // cached here now
  for (let i = 0; i < 10; i++) await client(appTheirs, c).delete(`x${i}`);
  expect(await numfound(client(appMine, c), 'shared')).toBe(40); // tombstones
  await foldAll(theirs);
  expect(await numfound(client(appMine, c), 'shared')).toBe(40); // deleted bitmap, new version
  await addDocs(client(appTheirs, c), 30, 'y');
  await foldAll(theirs);
  expect(await numfound(client(appMine, c), 'shared')).toBe(70); // new segment
  await appMine.services.close();
  await appTheirs.services.close();
});

test('When a collection is deleted, its whole index goes (segments, posting lists, numbers, pending)', async () => {
  const index = createPostgresIndex(db.pool, {
    foldBatchSize: 10,
    packedMaxDocs: 20,
    autoFold: false,
  });
  const { app, c, api } = await appWithCollection(db, {}, { index });
  await addDocs(api, 100, 'z');
  await foldAll(index);
  await addDocs(api, 5, 'p');
  const rows = async () =>
    (
      await db.pool.query(
        `SELECT (SELECT count(*) FROM search_postings WHERE segment_id IN
                   (SELECT id FROM search_segments WHERE collection_id = $1))::int AS postings,
                (SELECT count(*) FROM search_segments WHERE collection_id = $1)::int AS segments,
                (SELECT count(*) FROM search_pending WHERE collection_id = $1)::int AS pending,
                (SELECT count(*) FROM search_index_state WHERE collection_id = $1)::int AS state`,
        [c.cid],
      )
    ).rows[0];
  expect((await rows()).postings).toBeGreaterThan(0);
  const res = await adminApi(app).delete(`/collections/${c.cid}`);
  expect(res.status).toBe(204);
  expect(await rows()).toEqual({ postings: 0, segments: 0, pending: 0, state: 0 });
  await app.services.close();
});

test('When the folder works, /metrics shows the fold lag, batch sizes and durations', async () => {
  const metrics = createMetrics('search-service');
  const index = createPostgresIndex(db.pool, { metrics, autoFold: false });
  const { app, api } = await appWithCollection(db, {}, { index });
  await addDocs(api, 10, 'm');
  await index.folder.round();
  const text = await metrics.registry.metrics();
  expect(text).toMatch(/search_fold_lag_documents\{service="search-service"\} \d+/);
  expect(text).toMatch(/search_fold_batch_documents_count\{service="search-service"\} [1-9]/);
  expect(text).toMatch(
    /search_fold_duration_seconds_count\{service="search-service",step="fold"\} [1-9]/,
  );
  expect(text).toMatch(/search_index_cache_bytes/);
  await app.services.close();
});
