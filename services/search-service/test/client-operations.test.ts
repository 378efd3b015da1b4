import type { SearchClient } from '@hub/client' with { 'resolution-mode': 'import' };
import { SEARCH_ERRORS } from '@hub/contracts';
import { clientDoc as doc, useClientTest, type ClientModule } from './helpers/client';

const BIG = 9223372036854775807n;
const SMALL = -9223372036854775808n;

let lib: ClientModule;
const { collection } = useClientTest((t) => ({ lib } = t));

describe('search-service through @hub/client', () => {
  it('A document added with int64 scores is found with every digit exact (bigint)', async () => {
    const { search } = await collection();
    await search.add({
      dockey: 'k1',
      doc: { ...doc(), score_big: BIG, score_small: SMALL, categories: [1, 2147483647] },
    });
    const result = await search.search({ q: '가을' });
    expect({ ...result, querytime: 0 }).toEqual({
      querytime: 0,
      start: 0,
      numfound: 1,
      docs: [
        {
          dockey: 'k1',
          icontents_title: '서울의 가을 산책길',
          icontents_body: '단풍이 아름다운 산책 코스',
          score_regdate: 1700000000n,
          score_big: BIG,
          score_small: SMALL,
          categories: [1, 2147483647],
        },
      ],
    });
    expect(typeof result.querytime).toBe('number');
  });

  it('A search with facet: categories answers the counts per category, ca left out; without it no facets', async () => {
    const { search } = await collection();
    await search.add({ dockey: 'a', doc: doc({ categories: [1, 2147483647] }) });
    await search.add({ dockey: 'b', doc: doc({ categories: [1] }) });
    const result = await search.search({ q: '가을', ca: [2147483647], facet: 'categories' });
    expect(result.numfound).toBe(1);
    expect(result.facets).toEqual({ categories: { '1': 2, '2147483647': 1 } });
    expect('facets' in (await search.search({ q: '가을' }))).toBe(false);
  });

  it('A search with prefix: true matches every word the last word starts; without it whole words', async () => {
    const { search } = await collection();
    await search.add({ dockey: 'a', doc: doc({ icontents_title: 'searching' }) });
    expect((await search.search({ q: 'sea', prefix: true })).numfound).toBe(1);
    expect((await search.search({ q: 'sea' })).numfound).toBe(0);
  });

  it('A doc given as JSON text is sent as is, big numbers included', async () => {
    const { search } = await collection();
    const text =
      '{"icontents_title":"raw","icontents_body":"b","score_regdate":1,"score_x":123456789012345678}';
    await search.add({ dockey: 'raw', doc: text });
    const [found] = (await search.search({ q: 'raw' })).docs;
    expect(found?.score_x).toBe(123456789012345678n);
  });

  it('Form encoding carries spaces, &, +, = and Korean in dockey and q unchanged', async () => {
    const { search } = await collection();
    const dockey = 'a b&c+d=e/서울?%';
    await search.add({ dockey, doc: doc({ icontents_title: 'C++ & 서울 맛집' }) });
    const result = await search.search({ q: 'c 맛집' });
    expect(result.docs.map((d) => d.dockey)).toEqual([dockey]);
    expect(result.docs[0]?.icontents_title).toBe('C++ & 서울 맛집');
    await search.delete({ dockey });
    expect((await search.status()).document_count).toBe(0);
  });

  it('Update replaces the document: fields left out are removed', async () => {
    const { search } = await collection();
    await search.add({ dockey: 'k', doc: doc({ contents_url: 'https://x', score_a: 1 }) });
    await search.update({ dockey: 'k', doc: doc({ icontents_title: 'new 가을' }) });
    const [found] = (await search.search({ q: '가을' })).docs;
    expect(found).toEqual({
      dockey: 'k',
      icontents_title: 'new 가을',
      icontents_body: '단풍이 아름다운 산책 코스',
      score_regdate: 1700000000n,
      categories: [],
    });
  });

  it('A field update sets an int64 score exactly', async () => {
    const { search } = await collection();
    await search.add({ dockey: 'k', doc: doc({ score_views: 1 }) });
    await search.updateField({ dockey: 'k', fieldname: 'score_views', fieldvalue: SMALL });
    expect((await search.search({ q: '가을' })).docs[0]?.score_views).toBe(SMALL);
    await search.updateField({ dockey: 'k', fieldname: 'score_views', fieldvalue: 7 });
    expect((await search.search({ q: '가을' })).docs[0]?.score_views).toBe(7n);
  });

  it('Search options reach the service: ca, ex_ca, sort, dates, start and len', async () => {
    const { search } = await collection();
    for (let i = 1; i <= 12; i++) {
      await search.add({
        dockey: `d${i}`,
        doc: doc({ score_regdate: 1700000000 + i, categories: [i % 3] }),
      });
    }
    const keys = async (options: Omit<Parameters<SearchClient['search']>[0], 'q'>) =>
      (await search.search({ q: '가을', ...options })).docs.map((d) => d.dockey);
    expect(await keys({ ca: [0], sort: 1 })).toEqual(['d12', 'd9', 'd6', 'd3']);
    expect(await keys({ ex_ca: [0, 1], sort: 1 })).toEqual(['d11', 'd8', 'd5', 'd2']);
    expect(
      await keys({ startdate: 1700000010, enddate: new Date(1700000011 * 1000), sort: 1 }),
    ).toEqual(['d11', 'd10']);
    const page = await search.search({ q: '가을', sort: 1, start: 10, len: 10 });
    expect({ start: page.start, numfound: page.numfound }).toEqual({ start: 10, numfound: 12 });
    expect(page.docs.map((d) => d.dockey)).toEqual(['d2', 'd1']);
  });

  it('Status answers search_status and document_count', async () => {
    const { search } = await collection();
    await search.add({ dockey: 'a', doc: doc() });
    await search.add({ dockey: 'b', doc: doc() });
    expect(await search.status()).toEqual({ search_status: 'true', document_count: 2 });
  });

  it('At the maximum, add throws index max reached; with force the oldest document goes', async () => {
    const { search } = await collection({ max_documents: 1 });
    await search.add({ dockey: 'old', doc: doc() });
    const error = await search.add({ dockey: 'new', doc: doc() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(lib.SearchError);
    expect(error).toMatchObject({
      contract: SEARCH_ERRORS.add.indexMaxReached,
      code: 'indexMaxReached',
    });
    await search.add({ dockey: 'new', doc: doc(), force: true });
    expect((await search.search({ q: '가을' })).docs.map((d) => d.dockey)).toEqual(['new']);
  });
});
