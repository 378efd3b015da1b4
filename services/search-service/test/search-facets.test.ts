import request from 'supertest';
import { SEARCH_HTTP_ERRORS } from '@hub/contracts';
import type { SearchApp } from '../src/app';
import {
  createPostgresIndex,
  type PostgresSearchIndex,
} from '../src/index/postgres/postgres-index';
import {
  appWithCollection,
  client,
  foldAll,
  useSearchDatabase,
  type TestCollection,
} from './helpers/harness';

/**
 * facet=categories (beyond the spec) over HTTP: the envelope gains `facets`, the exact number of
 * matches per category after every filter but ca; a search without the parameter answers as
 * before; a facet other than categories answers 400 after every spec check.
 */

const db = useSearchDatabase();
let app: SearchApp;
let c: TestCollection;
let api: ReturnType<typeof client>;
let index: PostgresSearchIndex;

const T0 = 1_700_000_000;

const doc = (title: string, regdate: number, categories?: number[]) =>
  JSON.stringify({
    icontents_title: title,
    icontents_body: 'body',
    score_regdate: regdate,
    ...(categories ? { categories } : {}),
  });

beforeAll(async () => {
  index = createPostgresIndex(db.pool, { autoFold: false });
  ({ app, c, api } = await appWithCollection(db, { max_documents: 1000 }, { index }));
  const folded: Array<[string, string]> = [
    ['a', doc('apple pie', T0 + 1, [3, 7])],
    ['b', doc('apple tart', T0 + 2, [3])],
    ['c', doc('apple cake', T0 + 3, [10])],
    ['d', doc('apple juice', T0 + 4)],
    ['gone', doc('apple gone', T0 + 5, [3, 10])],
  ];
  for (const [key, body] of folded) expect((await api.add(key, body)).status).toBe(200);
  await foldAll(index);
  expect((await api.delete('gone')).status).toBe(200);
  // pending (not folded): counted as numfound counts them
  expect((await api.add('e', doc('apple crumble', T0 + 6, [7, 7, 200]))).status).toBe(200);
  expect((await api.add('f', doc('pear tart', T0 + 7, [3]))).status).toBe(200);
});

const json = async (params: Record<string, string | number>) => {
  const res = await api.search(params);
  expect(res.status).toBe(200);
  return { text: res.text, body: JSON.parse(res.text) };
};

describe('facet=categories in JSON', () => {
  test('When facet=categories is sent, the envelope ends with facets: every category of the matches with its exact count, keys ascending', async () => {
    const { text, body } = await json({ q: 'apple', facet: 'categories' });
    expect(Object.keys(body)).toEqual(['querytime', 'start', 'numfound', 'docs', 'facets']);
    expect(body.numfound).toBe(5);
    // a: 3 7, b: 3, c: 10, d: none, e (pending): 7 200; the deleted document counts nowhere
    expect(text).toMatch(/,"facets":\{"categories":\{"3":2,"7":2,"10":1,"200":1\}\}\}$/);
  });

  test('When ca is sent too, the docs and numfound follow ca but the counts do not (what choosing another category would give)', async () => {
    const { body } = await json({ q: 'apple', ca: '10', facet: 'categories' });
    expect(body.numfound).toBe(1);
    expect(body.docs.map((d: { dockey: string }) => d.dockey)).toEqual(['c']);
    expect(body.facets).toEqual({ categories: { '3': 2, '7': 2, '10': 1, '200': 1 } });
  });

  test('When ex_ca, dates or several words narrow the matches, the counts are narrowed the same way', async () => {
    expect((await json({ q: 'apple', ex_ca: '7', facet: 'categories' })).body.facets).toEqual({
      categories: { '3': 1, '10': 1 },
    });
    expect(
      (await json({ q: 'apple', startdate: T0 + 2, enddate: T0 + 6, facet: 'categories' })).body
        .facets,
    ).toEqual({ categories: { '3': 1, '7': 1, '10': 1, '200': 1 } });
    expect((await json({ q: 'tart', facet: 'categories' })).body).toMatchObject({
      numfound: 2,
      facets: { categories: { '3': 2 } },
    });
  });

  test('When nothing matches, facets is there and empty', async () => {
    expect((await json({ q: 'banana', facet: 'categories' })).text).toMatch(
      /,"facets":\{"categories":\{\}\}\}$/,
    );
    expect((await json({ q: '!!!', facet: 'categories' })).body).toMatchObject({
      numfound: 0,
      facets: { categories: {} },
    });
  });

  test('When facet is absent, empty or blank, the answer is the spec envelope, byte for byte without facets', async () => {
    const spec = (await json({ q: 'apple', ca: '3', sort: 1 })).text;
    expect(spec).not.toContain('facets');
    for (const facet of ['', '  ']) {
      const other = (await json({ q: 'apple', ca: '3', sort: 1, facet })).text;
      expect(other.replace(/"querytime":\d+/, '')).toBe(spec.replace(/"querytime":\d+/, ''));
    }
  });

  test('When the page is the last one, the counts are still over every match', async () => {
    const { body } = await json({ q: 'apple', start: 990, facet: 'categories' });
    expect(body).toMatchObject({ docs: [], numfound: 5, facets: { categories: { '3': 2 } } });
  });
});

describe('facet=categories with hl=1', () => {
  test('When both are sent, the documents carry their highlights and the envelope its facets', async () => {
    const { body } = await json({ q: 'tart', hl: 1, facet: 'categories' });
    expect(body.docs.map((d: { highlight_title: string }) => d.highlight_title)).toEqual([
      'pear <em>tart</em>',
      'apple <em>tart</em>',
    ]);
    expect(body.facets).toEqual({ categories: { '3': 2 } });
  });
});

describe('facet=categories in XML', () => {
  test('When facet=categories is sent for XML, <facets> follows <docs> with one <category id> per category', async () => {
    const res = await api.search({ q: 'apple', ca: '3', facet: 'categories' }, 'xml');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(
      /<\/docs><facets><categories><category id="3">2<\/category><category id="7">2<\/category><category id="10">1<\/category><category id="200">1<\/category><\/categories><\/facets><\/result>$/,
    );
    const empty = await api.search({ q: 'banana', facet: 'categories' }, 'xml');
    expect(empty.text).toMatch(
      /<docs><\/docs><facets><categories><\/categories><\/facets><\/result>$/,
    );
    const none = await api.search({ q: 'apple' }, 'xml');
    expect(none.text).not.toContain('<facets>');
  });
});

describe('the facet parameter is checked after the spec parameters', () => {
  const FACET_INVALID = SEARCH_HTTP_ERRORS.facetInvalid;

  test.each(['category', 'Categories', 'categories,dates', 'dates'])(
    'When facet is %p, the search answers 400 facet parameter is invalid',
    async (facet) => {
      const res = await api.search({ q: 'apple', facet });
      expect([res.status, res.headers['content-type'], res.text]).toEqual([
        FACET_INVALID.status,
        'text/plain; charset=utf-8',
        'facet parameter is invalid',
      ]);
    },
  );

  test('When facet is not valid UTF-8, it answers 400 facet parameter is invalid', async () => {
    const res = await request(app).get(
      `/v2/${c.cid}/search/json?apikey=${c.apikey}&q=apple&facet=%FF`,
    );
    expect([res.status, res.text]).toEqual([400, FACET_INVALID.text]);
  });

  test.each([
    [{ facet: 'bad' }, 'q is null'],
    [{ q: 'apple', len: 5, facet: 'bad' }, 'len parameter is invalid'],
    [{ q: 'apple', enddate: 'x', facet: 'bad' }, 'enddate parameter is invalid'],
  ])('When %p also breaks a spec rule, the spec row answers', async (params, text) => {
    const res = await api.search(params);
    expect([res.status, res.text]).toEqual([400, text]);
  });

  test('When hl is invalid too, facet answers first (both beyond the spec: facet, then hl)', async () => {
    const res = await api.search({ q: 'apple', facet: 'bad', hl: 'x' });
    expect([res.status, res.text]).toEqual([400, FACET_INVALID.text]);
  });

  test('When the format is invalid too, return type is invalid answers (step 5 comes first)', async () => {
    const res = await api.search({ q: 'apple', facet: 'bad' }, 'html');
    expect([res.status, res.text]).toEqual([400, 'return type is invalid']);
  });
});
