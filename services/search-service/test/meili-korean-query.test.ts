import { parseSearchParams } from '@hub/contracts';
import { createMeiliGateway } from '../src/index/meilisearch/gateway';
import { buildSearchRequest } from '../src/index/meilisearch/mapping';
import type { SearchQuery } from '../src/index/search-index';
import { startMeiliStub, type MeiliStub } from './meili-stub';

/**
 * Korean queries to Meilisearch: its segmenter splits 경복궁에서 into 경복궁 + 에서 and, with
 * matchingStrategy "all", would require 에서 in the document too, so q goes by the stems of the
 * Postgres engine's particle rules.
 */

/** The query the domain makes of q in collection abcd1234 (every other parameter absent). */
function query(q: string): SearchQuery {
  const params = parseSearchParams({ q });
  if (!params.ok) throw new Error(params.error.text);
  return { collectionId: 'abcd1234', ...params.value };
}

describe('Meilisearch query: Korean particles', () => {
  test.each([
    ['경복궁에서 야경', '경복궁 야경'],
    ['부산으로 가는 기차', '부산 가 기차'],
    ['서울의 맛집을', '서울 맛집'],
    ['iPhone을 샀다', 'iPhone 샀다'],
    ['AI가 바꿀 일자리', 'AI 바꿀 일자리'],
    ['2024년에 출시', '2024년 출시'],
    ['"경복궁에서" -입장료', '"경복궁" -입장료'],
  ])('When q is %j, the request asks for %j', (q, sent) => {
    expect(buildSearchRequest(query(q)).q).toBe(`${sent} `); // the space: every word whole
  });

  test.each([['hello world'], ['고양이'], ['제주도 날씨'], ['서울 맛집'], ['Ｈｅｌｌｏ 東京']])(
    'When q %j has no particle to split off, it is sent exactly as given',
    (q) => {
      expect(buildSearchRequest(query(q)).q).toBe(`${q} `);
    },
  );

  test('When q is written with conjoining jamo, it is composed before its particles are split off', () => {
    expect(buildSearchRequest(query('경복궁에서'.normalize('NFD'))).q).toBe('경복궁 ');
  });
});

describe('Meilisearch query: spacing (Meilisearch derives concatenations itself)', () => {
  test.each([
    ['서울맛집에서', '서울맛집'],
    ['서울의 맛집', '서울 맛집'],
    ['data base', 'data base'],
    ['길 고양이', '길 고양이'],
    ['e mail을', 'e mail'],
  ])(
    'When q is %j, the request keeps its words as spaced (%j) with matchingStrategy all',
    (q, sent) => {
      const request = buildSearchRequest(query(q));
      // then a space, which leaves Meilisearch's concatenations as they are (a soft separator)
      expect({ q: request.q, matchingStrategy: request.params.matchingStrategy }).toEqual({
        q: `${sent} `,
        matchingStrategy: 'all',
      });
    },
  );
});

describe('Meilisearch query: the request on the wire', () => {
  let stub: MeiliStub;
  beforeAll(async () => {
    stub = await startMeiliStub();
  });
  afterAll(() => stub.close());

  test('When a Korean query with particles is searched, the body carries the stems and every other parameter unchanged', async () => {
    stub.reset();
    stub.searchHandler = () => ({
      hits: [{ doc_id: '7' }],
      totalHits: 1,
      page: 1,
      hitsPerPage: 10,
      totalPages: 1,
      processingTimeMs: 1,
      query: 'q',
    });
    const gateway = createMeiliGateway({
      url: stub.url,
      apiKey: 'master-key',
      indexUid: 'documents',
      requestTimeoutMs: 300,
      taskTimeoutMs: 500,
    });
    await expect(gateway.search(buildSearchRequest(query('경복궁에서는 야경을')))).resolves.toEqual(
      {
        numfound: 1,
        docIds: ['7'],
      },
    );
    const search = stub.requests.find((r) => r.path === '/indexes/documents/search')!;
    expect(search.body).toEqual({
      q: '경복궁 야경 ',
      filter: ['collection_id = "abcd1234"'],
      page: 1,
      hitsPerPage: 10,
      attributesToRetrieve: ['doc_id'],
      matchingStrategy: 'all',
      locales: ['kor', 'eng'],
    });
  });
});
