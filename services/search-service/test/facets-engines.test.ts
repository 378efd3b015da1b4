import type { MeilisearchIndex } from '../src/index/meilisearch/meilisearch-index';
import type { SearchApp } from '../src/app';
import {
  expectedFacets,
  json,
  random,
  searchParams,
  type ModelDoc,
  type ModelQuery,
} from './helpers/engine-model';
import { client, makeApp, newCollection, type TestDatabase } from './helpers/harness';
import { useMeilisearch } from './helpers/meili';
import type { MeiliStub } from './meili-stub';

/**
 * facet=categories on both engines over HTTP: the Postgres engine, and the Meilisearch engine
 * against the stub (whose naive search matches words as substrings, so the words here are none
 * of each other's). For random queries both answer the same numfound and the same counts, and
 * those are what brute force over the documents counts. The contract suite
 * (test/contract/search-contract.ts) asks the same of a real Meilisearch when MEILI_URL is set.
 */

const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];
const T0 = 1_700_000_000;

let db: TestDatabase;
let engine: MeilisearchIndex;
let stub: MeiliStub;
useMeilisearch((m) => ({ db, engine, stub } = m));

function makeDoc(rand: () => number): ModelDoc {
  const words = (n: number) =>
    Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
  return {
    title: words(1 + Math.floor(rand() * 2)),
    body: words(1 + Math.floor(rand() * 3)),
    regdate: T0 + Math.floor(rand() * 10) * 3600,
    categories: Array.from({ length: Math.floor(rand() * 4) }, () => Math.floor(rand() * 12)),
  };
}

function makeQuery(rand: () => number): ModelQuery {
  const some = (n: number) => Array.from({ length: n }, () => Math.floor(rand() * 14));
  const from = Math.floor(rand() * 8);
  const p: ModelQuery = {
    q: WORDS[Math.floor(rand() * WORDS.length)]!,
    sort: rand() < 0.5 ? 0 : 1,
    start: 0,
    len: 10,
    facet: true,
  };
  if (rand() < 0.5) p.ca = some(1 + Math.floor(rand() * 3));
  if (rand() < 0.3) p.exCa = some(1 + Math.floor(rand() * 3));
  if (rand() < 0.3) p.from = T0 + from * 3600;
  if (rand() < 0.3) p.to = T0 + (from + Math.floor(rand() * 4)) * 3600;
  return p;
}

test('When both engines hold the same documents, every facet=categories search answers the same numfound and counts on both, as brute force counts', async () => {
  const rand = random(0xf0ce7);
  const model = new Map<string, ModelDoc>();
  const apps: Array<{ name: string; app: SearchApp }> = [
    { name: 'postgres', app: makeApp(db) },
    { name: 'meilisearch', app: makeApp(db, { index: engine }) },
  ];
  engine.start();
  await engine.ensureSettings();
  const apis = await Promise.all(
    apps.map(async ({ name, app }) => ({ name, api: client(app, await newCollection(app)) })),
  );
  for (let i = 0; i < 80; i++) {
    const d = makeDoc(rand);
    model.set(`k${i}`, d);
    for (const { api } of apis) expect((await api.add(`k${i}`, json(d))).status).toBe(200);
  }
  await engine.settle();

  for (let i = 0; i < 60; i++) {
    const p = makeQuery(rand);
    const answers = await Promise.all(
      apis.map(async ({ name, api }) => {
        const res = await api.search(searchParams(p));
        const body = JSON.parse(res.text);
        return { name, status: res.status, numfound: body.numfound, facets: body.facets };
      }),
    );
    const [postgres, meilisearch] = answers;
    expect({ ...p, ...meilisearch, name: '' }).toEqual({ ...p, ...postgres, name: '' });
    expect({ ...p, facets: postgres!.facets }).toEqual({ ...p, facets: expectedFacets(model, p) });
  }
  // both ways of asking Meilisearch were taken: one search with facets, a multi-search with ca
  const paths = stub.requests.map((r) => r.path);
  expect(paths).toContain('/multi-search');
  expect(
    stub.requests.some((r) => r.path.endsWith('/search') && 'facets' in (r.body as object)),
  ).toBe(true);
}, 60_000);
