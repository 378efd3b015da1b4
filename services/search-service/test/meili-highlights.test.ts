import { parseSearchParams } from '@hub/contracts';
import type { SearchApp } from '../src/app';
import {
  buildSearchRequest,
  MEILI_HIGHLIGHT_TAGS,
  readSearchResponse,
} from '../src/index/meilisearch/mapping';
import type { MeilisearchIndex } from '../src/index/meilisearch/meilisearch-index';
import type { SearchQuery } from '../src/index/search-index';
import { describeHighlightContract } from './contract/highlight-contract';
import { makeApp, newCollection, type TestDatabase } from './helpers/harness';
import { useMeilisearch } from './helpers/meili';
import { SEARCH_ASKS } from './helpers/meili-search';
import { client } from './helpers/requests';
import type { MeiliStub } from './meili-stub';

/**
 * Highlights with the Meilisearch engine: Meilisearch marks and crops itself
 * (attributesToHighlight, attributesToCrop) between tags of the engine's own, which are read
 * back as marks and written with the client's tags like the Postgres engine's. Against the
 * local stub: the request shape, the answer's mapping, the highlight contract through the HTTP
 * API, and the stored text winning over marks of another text.
 */

function query(q: string, highlight?: boolean): SearchQuery {
  const params = parseSearchParams({ q });
  if (!params.ok) throw new Error(params.error.text);
  return { collectionId: 'abcd1234', ...params.value, ...(highlight ? { highlight } : {}) };
}

const { pre, post } = MEILI_HIGHLIGHT_TAGS;

describe('Meilisearch highlights: the mapping', () => {
  test('When highlights are asked for, the request marks the title and body and crops the body, with the engine tags', () => {
    expect(buildSearchRequest(query('fox', true)).params).toEqual({
      filter: ['collection_id = "abcd1234"'],
      page: 1,
      hitsPerPage: 10,
      ...SEARCH_ASKS,
      attributesToHighlight: ['text.title', 'text.body'],
      highlightPreTag: '\uE000',
      highlightPostTag: '\uE001',
      attributesToCrop: ['text.body'],
      cropLength: 24,
      cropMarker: '',
    });
  });

  test('When highlights are not asked for, the request is as it always was', () => {
    expect(buildSearchRequest(query('fox')).params).toEqual({
      filter: ['collection_id = "abcd1234"'],
      page: 1,
      hitsPerPage: 10,
      ...SEARCH_ASKS,
    });
    expect(buildSearchRequest(query('fox', false))).toEqual(buildSearchRequest(query('fox')));
  });

  test("When Meilisearch answers, each hit's _formatted title and body become its marks", () => {
    const request = buildSearchRequest(query('fox', true));
    const hits = readSearchResponse(request, {
      totalHits: 3,
      hits: [
        {
          doc_id: '1',
          _formatted: {
            doc_id: '1',
            text: { title: `a ${pre}fox${post} <b>`, body: `${pre}😀${post}x` },
          },
        },
        { doc_id: '2' },
        { doc_id: '3', _formatted: { text: { title: `${pre}open`, body: 7 } } },
      ],
    });
    expect(hits).toEqual({
      numfound: 3,
      docIds: ['1', '2', '3'],
      highlights: new Map([
        [
          '1',
          { title: { text: 'a fox <b>', marks: [[2, 5]] }, body: { text: '😀x', marks: [[0, 2]] } },
        ],
        ['2', { title: null, body: null }],
        ['3', { title: null, body: null }],
      ]),
    });
    const plain = buildSearchRequest(query('fox'));
    expect(readSearchResponse(plain, { totalHits: 1, hits: [{ doc_id: '1' }] })).toEqual({
      numfound: 1,
      docIds: ['1'],
    });
  });
});

let db: TestDatabase;
let stub: MeiliStub;
let engine: MeilisearchIndex;
let app: SearchApp;

useMeilisearch((m) => ({ db, stub, engine } = m));
beforeAll(async () => {
  app = makeApp(db, { index: engine });
  engine.start();
  await engine.ensureSettings();
});

describe('Meilisearch highlights: through the HTTP API (stub)', () => {
  describeHighlightContract({ app: () => app, settle: () => engine.settle() });

  test('When Meilisearch marks the matches, its marks are the ones shown (the stub also marks inside words)', async () => {
    const api = client(app, await newCollection(app));
    await api.add(
      'k',
      JSON.stringify({ icontents_title: 'foxes & fox', icontents_body: 'b', score_regdate: 1 }),
    );
    await engine.settle();
    stub.requests.length = 0;
    const res = await api.search({ q: 'fox', hl: 1, hl_pre: '[', hl_post: ']' });
    expect(JSON.parse(res.text).docs[0].highlight_title).toBe('[fox]es &amp; [fox]');
    // the engine's own tags go to Meilisearch, never the client's
    expect(stub.requests.find((r) => r.path.endsWith('/search'))!.body).toMatchObject({
      attributesToHighlight: ['text.title', 'text.body'],
      highlightPreTag: pre,
      highlightPostTag: post,
    });
  });

  test('When the marked text is not the stored text (a document changed since), the stored text is marked by the analyser', async () => {
    const api = client(app, await newCollection(app));
    await api.add(
      'k',
      JSON.stringify({
        icontents_title: 'new fox title',
        icontents_body: 'fox body',
        score_regdate: 1,
      }),
    );
    await engine.settle();
    const { rows } = await db.pool.query<{ id: string }>(
      `SELECT id FROM documents WHERE dockey = 'k' ORDER BY id DESC LIMIT 1`,
    );
    stub.searchHandler = () => ({
      hits: [
        {
          doc_id: rows[0]!.id,
          _formatted: { text: { title: `old ${pre}fox${post} title`, body: `${pre}fox${post}` } },
        },
      ],
      totalHits: 1,
      page: 1,
      hitsPerPage: 10,
    });
    try {
      const doc = JSON.parse((await api.search({ q: 'fox', hl: 1 })).text).docs[0];
      expect([doc.highlight_title, doc.highlight_body]).toEqual([
        'new <em>fox</em> title',
        '<em>fox</em>',
      ]);
    } finally {
      stub.searchHandler = null;
    }
  });
});
