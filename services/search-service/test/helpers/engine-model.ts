import type pg from 'pg';
import { distinctTerms } from '../../src/index/analyser';
import {
  decidePlan,
  documentHas,
  matchesPlan,
  planCandidates,
  planTier,
} from '../../src/index/query-plan';
import {
  createPostgresIndex,
  type PostgresSearchIndex,
} from '../../src/index/postgres/postgres-index';
import { appWithCollection, type TestDatabase } from './harness';
import type { client, TestCollection } from './requests';

/**
 * A model of a collection's documents, what a search must answer over it by brute force, and
 * the engine and app the model tests run it on.
 */

export interface ModelDoc {
  title: string;
  body: string;
  regdate: number;
  categories: number[];
}

export const WORDS = [
  '서울',
  '부산에서',
  '맛집을',
  '바다',
  'fox',
  'lazy',
  'Quick',
  '2024',
  '커피',
  'tea',
];

/** A deterministic random source (xorshift32), so a failure can be replayed. */
export function random(seed: number) {
  let s = seed;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x100000000;
  };
}

export function makeDoc(rand: () => number): ModelDoc {
  const words = (n: number) =>
    Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
  return {
    title: words(1 + Math.floor(rand() * 2)),
    body: words(2 + Math.floor(rand() * 4)),
    regdate: 1_700_000_000 + Math.floor(rand() * 20) * 3600,
    categories: [...new Set([1 + Math.floor(rand() * 4), 1 + Math.floor(rand() * 4)])],
  };
}

export const json = (d: ModelDoc) =>
  JSON.stringify({
    icontents_title: d.title,
    icontents_body: d.body,
    score_regdate: d.regdate,
    categories: d.categories,
  });

export interface ModelQuery {
  q: string;
  sort: 0 | 1;
  start: number;
  len: number;
  ca?: number[];
  exCa?: number[];
  from?: number;
  to?: number;
  /** facet=categories (beyond the spec) */
  facet?: boolean;
  /** prefix=1 (beyond the spec): the rule of index/prefix-expansion.ts */
  prefix?: boolean;
}

/** The search parameters of a model query. */
export function searchParams(p: ModelQuery): Record<string, string | number | undefined> {
  return {
    q: p.q,
    sort: p.sort,
    start: p.start,
    len: p.len,
    ca: p.ca?.join(','),
    ex_ca: p.exCa?.join(','),
    startdate: p.from,
    enddate: p.to,
    facet: p.facet ? 'categories' : undefined,
    prefix: p.prefix ? 1 : undefined,
  };
}

/**
 * A search answer (JSON) as the model's answers are: numfound and the page's dockeys, and
 * `facets` when the answer has them.
 */
export function answerOf(text: string): {
  numfound: number;
  keys: string[];
  facets?: ReturnType<typeof expectedFacets>;
} {
  const body = JSON.parse(text);
  return {
    numfound: body.numfound,
    keys: body.docs?.map((d: { dockey: string }) => d.dockey),
    ...(body.facets ? { facets: body.facets } : {}),
  };
}

/** A search's status with its answer (answerOf) when 200, else with its text as it is. */
export function statusAndAnswer(res: { status: number; text: string }) {
  return { status: res.status, ...(res.status === 200 ? answerOf(res.text) : { text: res.text }) };
}

/**
 * q's plan over the model (query-plan.ts, as the engine decides it: document counts of the
 * model's documents; the model's words never take a derived form that deleted documents, which
 * the engine still counts until a merge, would change).
 */
function modelPlan(model: Map<string, ModelDoc>, q: string, prefix: boolean) {
  const docTerms = [...model.values()].map((d) => new Set(distinctTerms([d.title, d.body])));
  return decidePlan(
    planCandidates(q, { prefix }),
    (t) => docTerms.filter((terms) => terms.has(t)).length,
  );
}

/** The model's documents that match the query, by brute force. */
function matching(model: Map<string, ModelDoc>, p: ModelQuery): Array<[string, ModelDoc]> {
  const plan = modelPlan(model, p.q, p.prefix === true);
  return [...model].filter(([, d]) => {
    const terms = new Set(distinctTerms([d.title, d.body]));
    return (
      matchesPlan(plan, documentHas(terms)) &&
      (!p.ca || d.categories.some((c) => p.ca!.includes(c))) &&
      (!p.exCa || !d.categories.some((c) => p.exCa!.includes(c))) &&
      (p.from === undefined || d.regdate >= p.from) &&
      (p.to === undefined || d.regdate <= p.to)
    );
  });
}

/** What the engine must answer, computed from the model by brute force (facets when asked). */
export function expected(model: Map<string, ModelDoc>, ids: Map<string, number>, p: ModelQuery) {
  const plan = modelPlan(model, p.q, p.prefix === true);
  const hits = matching(model, p);
  const tier = (d: ModelDoc) => {
    if (p.sort !== 0) return 0;
    const terms = new Set(distinctTerms([d.title, d.body]));
    const title = new Set(distinctTerms([d.title]));
    return planTier(plan, documentHas(terms), documentHas(title));
  };
  hits.sort(
    ([ka, a], [kb, b]) => tier(a) - tier(b) || b.regdate - a.regdate || ids.get(kb)! - ids.get(ka)!,
  );
  return {
    numfound: hits.length,
    keys: hits.slice(p.start, p.start + p.len).map(([k]) => k),
    ...(p.facet ? { facets: expectedFacets(model, p) } : {}),
  };
}

/**
 * The `facets` a search with facet=categories must answer, by brute force: the matches of the
 * query without its ca, counted once per distinct category of each.
 */
export function expectedFacets(
  model: Map<string, ModelDoc>,
  p: ModelQuery,
): { categories: Record<string, number> } {
  const counts = new Map<number, number>();
  for (const [, d] of matching(model, { ...p, ca: undefined })) {
    for (const c of new Set(d.categories)) counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  const sorted = [...counts].sort((a, b) => a[0] - b[0]);
  return { categories: Object.fromEntries(sorted.map(([c, n]) => [String(c), n])) };
}

/**
 * A collection and its model, changed through the API: `add` adds n documents (random unless
 * `make` is given), `change`
 * deletes, updates or re-dates up to 15 of them (each as the model records it); `search` and
 * `want`, a search's answer and what it must be.
 */
export function modelCollection(
  pool: pg.Pool,
  api: ReturnType<typeof client>,
  c: TestCollection,
  rand: () => number,
) {
  const model = new Map<string, ModelDoc>();
  const ids = new Map<string, number>();
  let added = 0;
  const add = async (n: number, make: () => ModelDoc = () => makeDoc(rand)) => {
    for (let i = 0; i < n; i++) {
      const key = `k${added++}`;
      const d = make();
      expect((await api.add(key, json(d))).status).toBe(200);
      model.set(key, d);
    }
    const { rows } = await pool.query<{ dockey: string; id: string }>(
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
  /** a search of the collection: its status and answer (statusAndAnswer) */
  const search = async (p: ModelQuery) => statusAndAnswer(await api.search(searchParams(p)));
  /** what that search must answer over the model: 200, brute force's numfound and page */
  const want = (p: ModelQuery) => ({ status: 200, ...expected(model, ids, p) });
  return { model, ids, add, change, search, want };
}

/**
 * The engine of the model tests, over `pool`: 9 documents a fold and merged segments packed up
 * to 30 documents, so that a few hundred documents make many segments of both kinds and merges;
 * it folds only when the test folds (foldAll). `cacheBytes`: the engine's default unless given.
 */
export function modelIndex(pool: pg.Pool, cacheBytes?: number): PostgresSearchIndex {
  return createPostgresIndex(pool, {
    foldBatchSize: 9,
    packedMaxDocs: 30,
    autoFold: false,
    cacheBytes,
  });
}

/**
 * A new app on `index` with a collection of up to 10,000 documents, and the collection's model
 * (modelCollection, random from `seed`).
 */
export async function modelApp(db: TestDatabase, index: PostgresSearchIndex, seed: number) {
  const { app, c, api } = await appWithCollection(db, { max_documents: 10_000 }, { index });
  return { app, c, api, ...modelCollection(db.pool, api, c, random(seed)) };
}
