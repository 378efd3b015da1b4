import { distinctTerms, queryTerms } from '../src/index/analyser';
import { createPostgresIndex } from '../src/index/postgres/postgres-index';
import { MERGE_FACTOR } from '../src/index/postgres/segment-builder';
import { appWithCollection, foldAll, useSearchDatabase } from './helpers/harness';

/** The Postgres engine against a model: every answer as brute force over the documents gives it. */

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
