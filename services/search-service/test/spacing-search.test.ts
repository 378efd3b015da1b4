import { bitsetsMade } from '../src/index/postgres/format/bitset';
import { createPostgresIndex } from '../src/index/postgres/postgres-index';
import { appWithCollection, useSearchDatabase, type TestDatabase } from './helpers/harness';

/**
 * Spacing on the Postgres engine over HTTP (issue 26): a query finds a compound however either
 * side spaces it, documents that match q as typed rank first, numfound and facets count every
 * match, and pending and folded documents answer alike.
 */

let db: TestDatabase;
useSearchDatabase((opened) => (db = opened));

interface Doc {
  title: string;
  body: string;
  regdate: number;
  categories?: number[];
}

/** Newest last: a derived match that is newer than a typed one still ranks after it. */
const DOCS: Record<string, Doc> = {
  'typed-title': { title: '서울맛집 지도', body: '골목 식당 모음', regdate: 1_700_000_000 },
  'typed-body': {
    title: '주말 기록',
    body: '서울맛집 세 곳',
    regdate: 1_700_000_100,
    categories: [2],
  },
  'derived-title': { title: '서울 맛집 추천', body: '점심 메뉴', regdate: 1_700_000_200 },
  'derived-title-2': { title: '서울의 맛집', body: '저녁 메뉴', regdate: 1_700_000_300 },
  'derived-body': {
    title: '오늘의 일기',
    body: '서울에 가서 맛집을 찾았다',
    regdate: 1_700_000_400,
    categories: [2, 3],
  },
  'seoul-only': { title: '서울 날씨', body: '맑음', regdate: 1_700_000_500 },
  'db-joined': { title: 'database tuning', body: 'index 설계', regdate: 1_700_000_600 },
  'db-spaced': { title: 'data base 노트', body: '정규화', regdate: 1_700_000_700 },
  'data-only': { title: 'data plans', body: '요금', regdate: 1_700_000_800 },
  'base-only': { title: 'base camp', body: '등산', regdate: 1_700_000_900 },
  'base-only-2': { title: 'base rates', body: '금리', regdate: 1_700_001_000 },
  'data-only-2': { title: 'data science', body: '강좌', regdate: 1_700_001_100 },
  'cat-joined': { title: '길고양이 돌보기', body: '사료 주기', regdate: 1_700_001_200 },
};

async function collection() {
  const index = createPostgresIndex(db.pool, { autoFold: false, foldMinBatch: 1 });
  const { api } = await appWithCollection(db, { max_documents: 1000 }, { index });
  for (const [key, d] of Object.entries(DOCS)) {
    const doc = {
      icontents_title: d.title,
      icontents_body: d.body,
      score_regdate: d.regdate,
      ...(d.categories ? { categories: d.categories } : {}),
    };
    const res = await api.add(key, JSON.stringify(doc));
    expect(res.status).toBe(200);
  }
  const fold = async () => {
    while ((await index.folder.round()).folded > 0);
  };
  return { api, fold };
}

/** numfound and dockeys of a JSON answer. */
function answer(res: { status: number; text: string }) {
  const body = JSON.parse(res.text) as {
    numfound: number;
    docs: Array<{ dockey: string }>;
    facets?: unknown;
  };
  return {
    status: res.status,
    numfound: body.numfound,
    keys: body.docs.map((d) => d.dockey),
    ...(body.facets ? { facets: body.facets } : {}),
  };
}

/** numfound and dockeys of an XML answer. */
function xmlAnswer(res: { status: number; text: string }) {
  return {
    status: res.status,
    numfound: Number(/<numfound>(\d+)<\/numfound>/.exec(res.text)![1]),
    keys: [...res.text.matchAll(/<dockey>([^<]*)<\/dockey>/g)].map((m) => m[1]),
  };
}

const JOINED_ORDER = [
  'typed-title',
  'typed-body',
  'derived-title-2',
  'derived-title',
  'derived-body',
];

test('When q is written joined (서울맛집) and most documents space it, the spaced ones are found after the joined ones, pending and folded alike', async () => {
  const { api, fold } = await collection();
  const want = { status: 200, numfound: 5, keys: JOINED_ORDER };
  expect(answer(await api.search({ q: '서울맛집', sort: 0 }))).toEqual(want);
  expect(xmlAnswer(await api.search({ q: '서울맛집에서', sort: 0 }, 'xml'))).toEqual(want);
  await fold();
  expect(answer(await api.search({ q: '서울맛집', sort: 0 }))).toEqual(want);
  expect(xmlAnswer(await api.search({ q: '서울맛집에서', sort: 0 }, 'xml'))).toEqual(want);
}, 60_000);

test('When some documents are folded and others pending, the tiers rank both together', async () => {
  const { api, fold } = await collection();
  await fold();
  const late = {
    icontents_title: '서울맛집 총정리',
    icontents_body: '새 글',
    score_regdate: 1_600_000_000,
  };
  expect((await api.add('typed-late', JSON.stringify(late))).status).toBe(200);
  const spaced = {
    icontents_title: '서울 맛집 새 글',
    icontents_body: '새 글',
    score_regdate: 1_600_000_001,
  };
  expect((await api.add('derived-late', JSON.stringify(spaced))).status).toBe(200);
  expect(answer(await api.search({ q: '서울맛집', sort: 0 }))).toEqual({
    status: 200,
    numfound: 7,
    keys: [
      'typed-title',
      'typed-late',
      'typed-body',
      'derived-title-2',
      'derived-title',
      'derived-late',
      'derived-body',
    ],
  });
}, 60_000);

test('When sort=1, derived matches are ranked by date with the typed ones', async () => {
  const { api } = await collection();
  expect(answer(await api.search({ q: '서울맛집', sort: 1 }))).toEqual({
    status: 200,
    numfound: 5,
    keys: [...JOINED_ORDER].sort((a, b) => DOCS[b]!.regdate - DOCS[a]!.regdate),
  });
}, 60_000);

test('When a page starts past the typed matches, numfound still counts every match', async () => {
  const { api, fold } = await collection();
  await fold();
  expect(answer(await api.search({ q: '서울맛집', sort: 0, start: 2, len: 10 }))).toEqual({
    status: 200,
    numfound: 5,
    keys: JOINED_ORDER.slice(2),
  });
}, 60_000);

test('When facet=categories, the derived matches are counted too', async () => {
  const { api, fold } = await collection();
  const want = {
    status: 200,
    numfound: 1,
    keys: ['derived-body'],
    facets: { categories: { '2': 2, '3': 1 } },
  };
  const p = { q: '서울맛집', sort: 0, ca: 3, facet: 'categories' };
  expect(answer(await api.search(p))).toEqual(want);
  await fold();
  expect(answer(await api.search(p))).toEqual(want);
}, 60_000);

test.each([
  ['data base', 2, ['db-spaced', 'db-joined']],
  ['database', 2, ['db-joined', 'db-spaced']],
  ['길 고양이', 1, ['cat-joined']],
])(
  'When q is %s, it finds the compound written joined and spaced',
  async (q, numfound, keys) => {
    const { api, fold } = await collection();
    const want = { status: 200, numfound, keys };
    expect(answer(await api.search({ q, sort: 0 }))).toEqual(want);
    await fold();
    expect(answer(await api.search({ q, sort: 0 }))).toEqual(want);
  },
  60_000,
);

test('When q is a word found as typed only (서울), nothing is derived and the answer is as before', async () => {
  const { api } = await collection();
  expect(answer(await api.search({ q: '서울', sort: 1, len: 10 }))).toEqual({
    status: 200,
    numfound: 6,
    keys: [
      'seoul-only',
      'derived-body',
      'derived-title-2',
      'derived-title',
      'typed-body',
      'typed-title',
    ],
  });
}, 60_000);

test('When q takes derived forms, a search makes at most 8 bitsets; without, at most 4', async () => {
  const { api, fold } = await collection();
  await fold();
  for (const [q, most] of [
    ['서울맛집', 8],
    ['data base', 8],
    ['서울', 4],
  ] as const) {
    const made = bitsetsMade();
    expect((await api.search({ q, sort: 0 })).status).toBe(200);
    expect(bitsetsMade() - made).toBeLessThanOrEqual(most);
  }
}, 60_000);
