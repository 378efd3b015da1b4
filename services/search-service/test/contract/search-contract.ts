import type pg from 'pg';
import request from 'supertest';
import type { SearchApp } from '../../src/app';
import type { SearchIndex } from '../../src/index/search-index';
import {
  appWithCollection,
  closeAfterAll,
  newCollection,
  useSearchDatabase,
} from '../helpers/harness';
import { client, type TestCollection } from '../helpers/requests';
import { describeHighlightContract } from './highlight-contract';

/**
 * The search behaviour every engine must have, through the HTTP API. Each engine's test file
 * calls describeSearchContract with a factory for its SearchIndex and a settle() that returns
 * once everything added so far is searchable (a no-op for an engine that indexes in the write
 * transaction; waiting for the indexer for an asynchronous one).
 */
export function describeSearchContract(
  engineName: string,
  makeIndex: (pool: pg.Pool) => SearchIndex,
  settle: () => Promise<void>,
): void {
  describe(`search contract: ${engineName}`, () => {
    let index: SearchIndex;
    let app: SearchApp;
    let c: TestCollection;
    let api: ReturnType<typeof client>;

    const T0 = 1_700_000_000;
    const DAY = 86_400;

    /** A doc as JSON text; numbers are written as given (exact int64 text). */
    function doc(fields: Record<string, string | number | number[] | bigint>): string {
      const parts = Object.entries(fields).map(([k, v]) => {
        const value =
          typeof v === 'string'
            ? JSON.stringify(v)
            : Array.isArray(v)
              ? `[${v.join(',')}]`
              : String(v);
        return `${JSON.stringify(k)}:${value}`;
      });
      return `{${parts.join(',')}}`;
    }

    const DOCS: Array<[string, string]> = [
      [
        'ko-1',
        doc({
          icontents_title: '서울에서 맛집을 찾았다',
          icontents_body: '오늘은 친구와 함께 점심을 먹었다',
          score_regdate: T0 + 1 * DAY,
          categories: [1, 2],
        }),
      ],
      [
        'ko-2',
        doc({
          icontents_title: '부산 여행기',
          icontents_body: '서울에서 출발해서 부산의 바다를 보았다',
          score_regdate: T0 + 2 * DAY,
          categories: [2],
        }),
      ],
      [
        'ko-3',
        doc({
          icontents_title: '제주도 맛집 추천',
          icontents_body: '바다가 보이는 식당들',
          score_regdate: T0 + 3 * DAY,
          categories: [3],
        }),
      ],
      [
        'en-1',
        doc({
          icontents_title: 'Quick brown fox',
          icontents_body: 'The fox jumps over the lazy dog in 2024',
          score_regdate: T0 + 4 * DAY,
          categories: [1],
        }),
      ],
      [
        'en-2',
        doc({
          icontents_title: 'Lazy afternoon',
          icontents_body: 'A QUICK nap, no fox today',
          score_regdate: T0 + 5 * DAY,
        }),
      ],
      [
        'en-3',
        doc({
          icontents_title: 'Release notes 2024',
          icontents_body: 'Version 3.2 brings search',
          score_regdate: T0 + 6 * DAY,
          categories: [4, 5],
          score_views: 9223372036854775807n,
        }),
      ],
      [
        'user-1',
        doc({
          icontents_title: 'custom fields',
          icontents_body: 'plain body',
          icontents_tags: 'zebra giraffe',
          contents_note: 'hidden elephant',
          score_regdate: T0 + 7 * DAY,
          contents_url: 'https://example.com/u1',
        }),
      ],
    ];

    async function hits(params: Record<string, string | number>): Promise<{
      numfound: number;
      keys: string[];
      body: { start: number; querytime: number; docs: Array<Record<string, unknown>> };
    }> {
      const res = await api.search(params);
      expect(res.status).toBe(200);
      const body = JSON.parse(res.text);
      return {
        numfound: body.numfound,
        keys: body.docs.map((d: { dockey: string }) => d.dockey),
        body,
      };
    }

    async function addAll(docs: Array<[string, string]>, concurrency = 8): Promise<void> {
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < docs.length) {
            const [key, body] = docs[next++]!;
            const res = await api.add(key, body);
            if (res.status !== 200) throw new Error(`add ${key}: ${res.status} ${res.text}`);
          }
        }),
      );
    }

    const db = useSearchDatabase();
    beforeAll(async () => {
      index = makeIndex(db.pool);
      index.start?.();
      closeAfterAll(() => index.stop?.());
      ({ app, c, api } = await appWithCollection(db, { max_documents: 100_000 }, { index }));
      await addAll(DOCS);
      await settle();
    });

    test('When q is a Korean word inside a longer word (서울 in 서울에서), the document is found', async () => {
      expect((await hits({ q: '서울', sort: 1 })).keys).toEqual(['ko-2', 'ko-1']);
      expect((await hits({ q: '맛집', sort: 1 })).keys).toEqual(['ko-3', 'ko-1']);
      expect((await hits({ q: '바다', sort: 1 })).keys).toEqual(['ko-3', 'ko-2']);
    });

    test('When q is a Korean word no document has, nothing is found', async () => {
      expect(await hits({ q: '대구' })).toMatchObject({ numfound: 0, keys: [] });
    });

    test('When q has several words, every word must match', async () => {
      expect((await hits({ q: '서울 맛집' })).keys).toEqual(['ko-1']);
      expect((await hits({ q: 'fox lazy', sort: 1 })).keys).toEqual(['en-2', 'en-1']);
      expect((await hits({ q: 'fox elephant' })).numfound).toBe(0);
    });

    test('When q is English in any case, matching ignores case', async () => {
      expect((await hits({ q: 'QUICK', sort: 1 })).keys).toEqual(['en-2', 'en-1']);
      expect((await hits({ q: 'quick', sort: 1 })).keys).toEqual(['en-2', 'en-1']);
    });

    test('When q is a number, documents with that number are found', async () => {
      expect((await hits({ q: '2024', sort: 1 })).keys).toEqual(['en-3', 'en-1']);
    });

    test('When prefix=1 is sent and the rule leaves the last word whole (one letter, two Hangul syllables, a separator after it), the answer is as without prefix', async () => {
      for (const q of ['서울', '바다 맛집', 'fox q', 'fox.', 'lazy 2024']) {
        const plain = await hits({ q, sort: 1 });
        const prefixed = await hits({ q, sort: 1, prefix: 1 });
        expect([q, prefixed.numfound, prefixed.keys]).toEqual([q, plain.numfound, plain.keys]);
      }
    });

    test('When a user-defined icontents field holds the word it is found; contents fields are never matched', async () => {
      expect((await hits({ q: 'giraffe' })).keys).toEqual(['user-1']);
      expect((await hits({ q: 'elephant' })).numfound).toBe(0);
      expect((await hits({ q: 'example' })).numfound).toBe(0);
    });

    test('When sort=0, a document with the words in its title ranks above one with them only in the body', async () => {
      // ko-1 has 서울 in the title; ko-2 (newer) only in the body
      expect((await hits({ q: '서울', sort: 0 })).keys).toEqual(['ko-1', 'ko-2']);
      // en-1 has fox in the title; en-2 (newer) only in the body
      expect((await hits({ q: 'fox' })).keys).toEqual(['en-1', 'en-2']);
    });

    test('When sort=1, results are newest first by score_regdate', async () => {
      expect((await hits({ q: 'fox', sort: 1 })).keys).toEqual(['en-2', 'en-1']);
    });

    test('When ca is given, only documents in any of those categories are found', async () => {
      expect((await hits({ q: '서울', ca: '1' })).keys).toEqual(['ko-1']);
      expect((await hits({ q: '서울', ca: '1,2', sort: 1 })).keys).toEqual(['ko-2', 'ko-1']);
      expect((await hits({ q: 'fox', ca: '9' })).numfound).toBe(0);
    });

    test('When ex_ca is given, documents in any of those categories are left out (no categories: kept)', async () => {
      expect((await hits({ q: '서울', ex_ca: '1' })).keys).toEqual(['ko-2']);
      expect((await hits({ q: 'fox', ex_ca: '1' })).keys).toEqual(['en-2']);
      expect((await hits({ q: '맛집', ex_ca: '1,3' })).numfound).toBe(0);
      expect((await hits({ q: '바다', ca: '2,3', ex_ca: '3' })).keys).toEqual(['ko-2']);
    });

    test('When startdate and enddate are given, they bound score_regdate inclusively', async () => {
      const all = { q: '서울' };
      expect((await hits({ ...all, startdate: T0 + 2 * DAY })).keys).toEqual(['ko-2']);
      expect((await hits({ ...all, enddate: T0 + 1 * DAY })).keys).toEqual(['ko-1']);
      expect(
        (await hits({ q: '바다', startdate: T0 + 2 * DAY, enddate: T0 + 3 * DAY, sort: 1 })).keys,
      ).toEqual(['ko-3', 'ko-2']);
      expect(
        (await hits({ q: '바다', startdate: T0 + 2 * DAY + 1, enddate: T0 + 3 * DAY - 1 }))
          .numfound,
      ).toBe(0);
    });

    /** the facets of a search with facet=categories (beyond the spec), and its numfound and keys */
    async function facets(params: Record<string, string | number>) {
      const { numfound, keys, body } = await hits({ ...params, facet: 'categories' });
      return { numfound, keys, facets: (body as { facets?: unknown }).facets };
    }

    test('When facet=categories is sent, facets counts the matches per category (a document in each of its categories)', async () => {
      expect(await facets({ q: '서울', sort: 1 })).toEqual({
        numfound: 2,
        keys: ['ko-2', 'ko-1'],
        facets: { categories: { '1': 1, '2': 2 } },
      });
      expect((await facets({ q: 'release' })).facets).toEqual({
        categories: { '4': 1, '5': 1 },
      });
    });

    test('When facet=categories is sent with ca, the page follows ca but the counts do not', async () => {
      expect(await facets({ q: '서울', ca: '1' })).toEqual({
        numfound: 1,
        keys: ['ko-1'],
        facets: { categories: { '1': 1, '2': 2 } },
      });
      expect(await facets({ q: 'fox', ca: '9' })).toEqual({
        numfound: 0,
        keys: [],
        facets: { categories: { '1': 1 } },
      });
    });

    test('When facet=categories is sent with ex_ca or dates, the counts follow them', async () => {
      expect(await facets({ q: 'fox', ex_ca: '1' })).toEqual({
        numfound: 1,
        keys: ['en-2'],
        facets: { categories: {} },
      });
      expect(
        (await facets({ q: '바다', startdate: T0 + 2 * DAY, enddate: T0 + 3 * DAY, ca: '3' }))
          .facets,
      ).toEqual({ categories: { '2': 1, '3': 1 } });
      expect((await facets({ q: '대구' })).facets).toEqual({ categories: {} });
      expect((await facets({ q: '!!! ...' })).facets).toEqual({ categories: {} });
    });

    test('When facet=categories is sent for xml, <facets> follows <docs>', async () => {
      const res = await api.search({ q: '서울', ca: '2', facet: 'categories' }, 'xml');
      expect(res.status).toBe(200);
      expect(res.text).toMatch(
        /<\/docs><facets><categories><category id="1">1<\/category><category id="2">2<\/category><\/categories><\/facets><\/result>$/,
      );
    });

    test('When a result is returned, documents carry their stored fields, dockey and categories; int64 stays exact', async () => {
      const res = await api.search({ q: 'release' });
      expect(res.text).toContain('"score_views":9223372036854775807');
      const body = JSON.parse(res.text);
      expect(Object.keys(body)).toEqual(['querytime', 'start', 'numfound', 'docs']);
      expect(typeof body.querytime).toBe('number');
      expect(body.querytime).toBeGreaterThanOrEqual(0);
      expect(body.docs[0]).toMatchObject({
        dockey: 'en-3',
        icontents_title: 'Release notes 2024',
        icontents_body: 'Version 3.2 brings search',
        score_regdate: T0 + 6 * DAY,
        categories: [4, 5],
      });
      const none = (await hits({ q: 'afternoon' })).body.docs[0]!;
      expect(none.categories).toEqual([]);
      const user = (await hits({ q: 'zebra' })).body.docs[0]!;
      expect(user).toMatchObject({
        contents_note: 'hidden elephant',
        icontents_tags: 'zebra giraffe',
        contents_url: 'https://example.com/u1',
      });
    });

    test('When the format is xml, the result carries the same data', async () => {
      const res = await api.search({ q: 'release' }, 'xml');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
      expect(res.text).toMatch(
        /^<\?xml version="1.0" encoding="UTF-8"\?><result><querytime>\d+<\/querytime><start>0<\/start><numfound>1<\/numfound><docs><doc>/,
      );
      expect(res.text).toContain(
        '<dockey>en-3</dockey><icontents_title>Release notes 2024</icontents_title>',
      );
      expect(res.text).toContain('<score_views>9223372036854775807</score_views>');
      expect(res.text).toContain(
        '<categories><category>4</category><category>5</category></categories>',
      );
    });

    test('When q has no letters or digits, nothing is found', async () => {
      expect(await hits({ q: '!!! ...' })).toMatchObject({ numfound: 0, keys: [] });
    });

    test('When a document is updated, field-updated or deleted, search follows', async () => {
      await api.add(
        'tmp-1',
        doc({ icontents_title: 'temporary kiwi', icontents_body: 'x', score_regdate: T0 }),
      );
      await settle();
      expect((await hits({ q: 'kiwi' })).keys).toEqual(['tmp-1']);
      await api.update(
        'tmp-1',
        doc({ icontents_title: 'temporary mango', icontents_body: 'x', score_regdate: T0 }),
      );
      await settle();
      expect((await hits({ q: 'kiwi' })).numfound).toBe(0);
      expect((await hits({ q: 'mango' })).keys).toEqual(['tmp-1']);
      await api.updateField('tmp-1', 'score_regdate', String(T0 + 100 * DAY));
      await settle();
      expect((await hits({ q: 'mango', startdate: T0 + 99 * DAY })).keys).toEqual(['tmp-1']);
      await api.delete('tmp-1');
      await settle();
      expect((await hits({ q: 'mango' })).numfound).toBe(0);
    });

    test('When another collection has matching documents, they are never found here', async () => {
      const other = await newCollection(app);
      await client(app, other).add(
        'other-1',
        doc({ icontents_title: '서울 fox', icontents_body: 'x', score_regdate: T0 }),
      );
      await settle();
      expect((await hits({ q: '서울 fox' })).numfound).toBe(0);
      const res = await client(app, other).search({ q: 'fox' });
      expect(JSON.parse(res.text).docs.map((d: { dockey: string }) => d.dockey)).toEqual([
        'other-1',
      ]);
    });

    describeHighlightContract({ app: () => app, settle });

    describe('paging over many matches', () => {
      const N = 1005;
      beforeAll(async () => {
        const bulk: Array<[string, string]> = [];
        for (let i = 0; i < N; i++) {
          bulk.push([
            `bulk-${String(i).padStart(4, '0')}`,
            doc({
              icontents_title: `bulk item ${i}`,
              icontents_body: i % 2 ? 'odd 홀수' : 'even 짝수',
              score_regdate: T0 + 1000 * DAY + i,
              categories: [100 + (i % 3)],
            }),
          ]);
        }
        await addAll(bulk, 8);
        await settle();
      }, 120_000);

      test('When there are more matches than a page, numfound is the exact number', async () => {
        expect((await hits({ q: 'bulk' })).numfound).toBe(N);
        expect((await hits({ q: 'odd' })).numfound).toBe(502);
        expect((await hits({ q: '짝수' })).numfound).toBe(503);
        expect((await hits({ q: 'bulk', ca: '100' })).numfound).toBe(335);
        expect((await hits({ q: 'bulk', ex_ca: '100,101' })).numfound).toBe(335);
        expect(
          (
            await hits({
              q: 'bulk',
              startdate: T0 + 1000 * DAY + 10,
              enddate: T0 + 1000 * DAY + 19,
            })
          ).numfound,
        ).toBe(10);
      });

      test('When facet=categories is sent over many matches, every count is exact (not only the page)', async () => {
        const count = (keep: (i: number) => boolean) => {
          const out: Record<string, number> = {};
          for (let i = 0; i < N; i++) {
            if (keep(i)) out[String(100 + (i % 3))] = (out[String(100 + (i % 3))] ?? 0) + 1;
          }
          return out;
        };
        expect((await facets({ q: 'bulk' })).facets).toEqual({
          categories: { '100': 335, '101': 335, '102': 335 },
        });
        expect(await facets({ q: 'odd', ca: '100', start: 990 })).toEqual({
          numfound: 167,
          keys: [],
          facets: { categories: count((i) => i % 2 === 1) },
        });
        expect(
          (
            await facets({
              q: '짝수',
              ex_ca: '101',
              startdate: T0 + 1000 * DAY + 100,
              enddate: T0 + 1000 * DAY + 899,
            })
          ).facets,
        ).toEqual({
          categories: count((i) => i % 2 === 0 && i % 3 !== 1 && i >= 100 && i <= 899),
        });
      });

      test('When start and len are given, that slice of the ordered matches is returned', async () => {
        const first = await hits({ q: 'bulk', sort: 1, len: 100 });
        expect(first.keys).toHaveLength(100);
        expect(first.keys[0]).toBe('bulk-1004');
        expect(first.keys[99]).toBe('bulk-0905');
        const second = await hits({ q: 'bulk', sort: 1, start: 100, len: 10 });
        expect(second.body.start).toBe(100);
        expect(second.keys).toEqual(
          Array.from({ length: 10 }, (_, i) => `bulk-${String(904 - i).padStart(4, '0')}`),
        );
        const defaults = await hits({ q: 'bulk', sort: 1 });
        expect(defaults.keys).toHaveLength(10);
      });

      test('When start is 990, len is fixed at 10', async () => {
        const page = await hits({ q: 'bulk', sort: 1, start: 990, len: 100 });
        expect(page.body.start).toBe(990);
        expect(page.keys).toEqual(
          Array.from({ length: 10 }, (_, i) => `bulk-${String(14 - i).padStart(4, '0')}`),
        );
      });

      test('When start is past the matches, docs is empty and numfound still exact', async () => {
        const page = await hits({ q: 'odd', start: 600 });
        expect(page).toMatchObject({ numfound: 502, keys: [] });
      });

      test('When sort=0 pages through matches, every match appears exactly once', async () => {
        const seen: string[] = [];
        for (let start = 0; start < 600; start += 100) {
          seen.push(...(await hits({ q: 'odd 홀수', start, len: 100 })).keys);
        }
        expect(seen).toHaveLength(502);
        expect(new Set(seen).size).toBe(502);
      });
    });

    test('When the collection status is read, search_status is "true" and document_count exact', async () => {
      const res = await request(app).get(`/v2/${c.cid}/status/json?apikey=${c.apikey}`);
      expect(JSON.parse(res.text)).toEqual({
        search_status: 'true',
        document_count: DOCS.length + 1005,
      });
    });
  });
}
