import { SEARCH_ERRORS, SEARCH_HTTP_ERRORS } from '@hub/contracts';
import type { PostgresSearchIndex } from '../src/index/postgres/postgres-index';
import { foldAll, smallSegmentsApp, useSearchDatabase } from './helpers/harness';
import type { client } from './helpers/requests';

/**
 * Search-as-you-type (prefix=1, beyond the spec) with the Postgres engine through the HTTP
 * API, over the three places a document can be: a row segment (one search_postings row per
 * term: the primary key's range), a packed segment (the sorted term dictionary), and the
 * pending tail (search_snapshot's SQL). The rule itself is index/prefix-expansion.ts.
 */

const db = useSearchDatabase();
let api: ReturnType<typeof client>;
let index: PostgresSearchIndex;

let regdate = 1_700_000_000;
const add = async (dockey: string, title: string, body = 'body', categories?: number[]) => {
  const doc = {
    icontents_title: title,
    icontents_body: body,
    score_regdate: regdate++,
    ...(categories ? { categories } : {}),
  };
  const res = await api.add(dockey, JSON.stringify(doc));
  if (res.status !== 200) throw new Error(`add ${dockey}: ${res.status} ${res.text}`);
};

let cid: string;

beforeAll(async () => {
  const app = await smallSegmentsApp(db, { max_documents: 1000 });
  ({ api, index } = app);
  cid = app.c.cid;
  // 72 documents: 8 folds of 9, merged into one segment of rows (past 30 documents)
  await add('r-searching', 'searching engines', 'body', [3]);
  await add('r-seaside', 'quiet seaside');
  await add('r-seoul', '서울역 맛집');
  await add('r-body', 'plain', 'a seashell collection');
  for (let i = 0; i < 68; i++) await add(`r-${i}`, 'filler words');
  await foldAll(index);
  // 9 more: one packed segment
  await add('p-season', 'season pass', 'body', [3, 7]);
  await add('p-seojeom', '서점 안내');
  for (let i = 0; i < 7; i++) await add(`p-${i}`, 'filler words');
  await foldAll(index);
  // pending
  await add('n-search', 'search tips', 'body', [7]);
  await add('n-seohae', '서해 바다');
  await add('n-sea', 'sea');
  await add('n-s', 's club');
});

async function found(params: Record<string, string | number>) {
  const res = await api.search(params);
  expect(res.status).toBe(200);
  const body = JSON.parse(res.text);
  return { numfound: body.numfound, keys: body.docs.map((d: { dockey: string }) => d.dockey) };
}

describe('prefix=1 over the segments and the pending tail', () => {
  test('When the collection is set up, it has a row segment, a packed segment and pending documents', async () => {
    const { rows } = await db.pool.query(
      `SELECT packed IS NOT NULL AS packed, doc_count FROM search_segments
       WHERE collection_id = $1 AND retired_at IS NULL ORDER BY first_docno`,
      [cid],
    );
    expect(rows).toEqual([
      { packed: false, doc_count: 72 },
      { packed: true, doc_count: 9 },
    ]);
  });

  test('When prefix=1 is sent, a Latin last word matches every word it starts, title tier first', async () => {
    expect(await found({ q: 'sea', prefix: 1 })).toEqual({
      numfound: 6,
      keys: ['n-sea', 'n-search', 'p-season', 'r-seaside', 'r-searching', 'r-body'],
    });
  });

  test('When prefix is not sent (or 0), the last word matches itself only, as before', async () => {
    expect(await found({ q: 'sea' })).toEqual({ numfound: 1, keys: ['n-sea'] });
    expect(await found({ q: 'sea', prefix: 0 })).toEqual({ numfound: 1, keys: ['n-sea'] });
  });

  test('When the last word is one Hangul syllable, it matches every word that starts with it', async () => {
    expect(await found({ q: '서', prefix: 1 })).toEqual({
      numfound: 3,
      keys: ['n-seohae', 'p-seojeom', 'r-seoul'],
    });
    expect(await found({ q: '서' })).toEqual({ numfound: 0, keys: [] });
  });

  test('When the last word is shorter than the minimum (one Latin letter), it is matched whole', async () => {
    expect(await found({ q: 's', prefix: 1 })).toEqual({ numfound: 1, keys: ['n-s'] });
  });

  test('When q ends with a separator (not a space: q is trimmed), the last word is matched whole', async () => {
    expect(await found({ q: 'sea.', prefix: 1 })).toEqual({ numfound: 1, keys: ['n-sea'] });
  });

  test('When q has other words, they are required whole and only the last is a prefix', async () => {
    expect(await found({ q: 'quiet sea', prefix: 1 })).toEqual({
      numfound: 1,
      keys: ['r-seaside'],
    });
    expect(await found({ q: 'sea quiet', prefix: 1 })).toEqual({ numfound: 0, keys: [] });
  });

  test('When sort=1, the prefix matches are newest first', async () => {
    expect(await found({ q: 'sea', prefix: 1, sort: 1 })).toEqual({
      numfound: 6,
      keys: ['n-sea', 'n-search', 'p-season', 'r-body', 'r-seaside', 'r-searching'],
    });
  });

  test('When a page is asked for, numfound stays exact and the page is cut from the same order', async () => {
    expect(await found({ q: 'sea', prefix: 1, start: 2, len: 10 })).toEqual({
      numfound: 6,
      keys: ['p-season', 'r-seaside', 'r-searching', 'r-body'],
    });
  });

  test('When facet=categories is sent with prefix=1, the counts are of the prefix matches', async () => {
    const res = await api.search({ q: 'sea', prefix: 1, facet: 'categories' });
    expect(JSON.parse(res.text).facets).toEqual({ categories: { '3': 2, '7': 2 } });
  });

  test('When hl=1 is sent with prefix=1, the part of each word the prefix matched is marked', async () => {
    const res = await api.search({ q: 'sea', prefix: 1, hl: 1 });
    const docs = JSON.parse(res.text).docs as Array<Record<string, string>>;
    const title = (key: string) => docs.find((d) => d.dockey === key)!.highlight_title;
    expect(title('r-searching')).toBe('<em>sea</em>rching engines');
    expect(title('n-sea')).toBe('<em>sea</em>');
    const ko = JSON.parse((await api.search({ q: '서', prefix: 1, hl: 1 })).text).docs;
    expect(ko.map((d: Record<string, string>) => d.highlight_title)).toEqual([
      '<em>서</em>해 바다',
      '<em>서</em>점 안내',
      '<em>서</em>울역 맛집',
    ]);
  });

  test('When the format is XML, the same matches are answered', async () => {
    const res = await api.search({ q: 'sea', prefix: 1, sort: 1 }, 'xml');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<numfound>6</numfound>');
    expect([...res.text.matchAll(/<dockey>([^<]*)<\/dockey>/g)].map((m) => m[1])).toEqual([
      'n-sea',
      'n-search',
      'p-season',
      'r-body',
      'r-seaside',
      'r-searching',
    ]);
  });

  test('When a prefix match is deleted, it is no longer counted (folded or pending)', async () => {
    expect((await api.delete('r-seaside')).status).toBe(200);
    expect((await api.delete('n-search')).status).toBe(200);
    expect(await found({ q: 'sea', prefix: 1 })).toEqual({
      numfound: 4,
      keys: ['n-sea', 'p-season', 'r-searching', 'r-body'],
    });
    await foldAll(index);
    expect((await found({ q: 'sea', prefix: 1 })).numfound).toBe(4);
  });
});

describe('prefix parameter', () => {
  test.each(['2', 'yes', 'true'])(
    'When prefix=%s is sent, the answer is 400 prefix parameter is invalid',
    async (prefix) => {
      const res = await api.search({ q: 'sea', prefix });
      const e = SEARCH_HTTP_ERRORS.prefixInvalid;
      expect([res.status, res.text]).toEqual([e.status, e.text]);
    },
  );

  test('When a spec parameter is invalid too, its spec row answers first', async () => {
    const res = await api.search({ q: 'sea', sort: 9, prefix: 'x' });
    expect(res.text).toBe(SEARCH_ERRORS.search.sortInvalid.text);
  });
});
