import { DOMParser } from '@xmldom/xmldom';
import fc from 'fast-check';
import { SEARCH_ERRORS, SEARCH_HTTP_ERRORS } from '@hub/contracts';
import { deleteNonXmlChars } from '@hub/service-kit';
import type { SearchApp } from '../src/app';
import { EXAMINED_UNITS } from '../src/index/highlight/marked-text';
import { useSearchApp } from './helpers/harness';
import { client, type TestCollection } from './helpers/requests';

/**
 * Highlights (hl=1, beyond the spec) with the Postgres engine through the HTTP API: the
 * parameters and their answers, a client that does not send hl seeing nothing new, Korean
 * particles, characters outside the BMP, the bounds, and (property) the XML and JSON giving
 * the same strings for any text. What every engine must do alike is in
 * test/contract/highlight-contract.ts.
 */

let app: SearchApp;
let c: TestCollection;
let api: ReturnType<typeof client>;
useSearchApp((t) => ({ app, c } = t), { collection: { max_documents: 100_000 } });

let regdate = 1_700_000_000;
async function add(dockey: string, fields: Record<string, string>): Promise<void> {
  const res = await api.add(dockey, JSON.stringify({ ...fields, score_regdate: regdate++ }));
  if (res.status !== 200) throw new Error(`add ${dockey}: ${res.status} ${res.text}`);
}

beforeAll(async () => {
  api = client(app, c);
  await add('ko-1', {
    icontents_title: '책이 많은 도서관',
    icontents_body: '경복궁의 야경과 책을',
  });
  await add('ko-2', { icontents_title: '정책 토론', icontents_body: '경복궁에서는 밤에' });
  await add('wide', { icontents_title: '😀fox😀 e\u0301cole 𝒜', icontents_body: 'fox' });
  await add('ctl', { icontents_title: 'fox\u0001bell', icontents_body: 'fox' });
});

async function docsOf(params: Record<string, string | number>) {
  const res = await api.search(params);
  expect(res.status).toBe(200);
  return JSON.parse(res.text).docs as Array<Record<string, string>>;
}

async function highlightOf(q: string, dockey: string) {
  const doc = (await docsOf({ q, hl: 1 })).find((d) => d.dockey === dockey)!;
  return [doc.highlight_title, doc.highlight_body];
}

describe('highlight parameters', () => {
  test.each([
    ['hl=2', { hl: 2 }, SEARCH_HTTP_ERRORS.hlInvalid],
    ['hl=yes', { hl: 'yes' }, SEARCH_HTTP_ERRORS.hlInvalid],
    ['hl_pre of 33 bytes', { hl: 1, hl_pre: 'x'.repeat(33) }, SEARCH_HTTP_ERRORS.hlPreTooLong],
    ['hl_post of 33 bytes', { hl: 1, hl_post: '가'.repeat(11) }, SEARCH_HTTP_ERRORS.hlPostTooLong],
    ['hl_pre with U+0000', { hl: 1, hl_pre: '\u0000' }, SEARCH_HTTP_ERRORS.hlPreInvalid],
  ])('When %s is sent, the answer is 400 with its text', async (_what, params, error) => {
    const res = await api.search({ q: 'fox', ...params });
    expect([res.status, res.text]).toEqual([error.status, error.text]);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  test('When hl_pre is not valid UTF-8, the answer is hl_pre parameter is invalid', async () => {
    const res = await api.search({ q: 'fox', hl: 1 }).query('hl_pre=%FF');
    expect([res.status, res.text]).toEqual([400, SEARCH_HTTP_ERRORS.hlPreInvalid.text]);
  });

  test('When a spec parameter is invalid too, its spec row answers first', async () => {
    const sortFirst = await api.search({ q: 'fox', sort: 2, hl: 2 });
    expect(sortFirst.text).toBe(SEARCH_ERRORS.search.sortInvalid.text);
    const qFirst = await api.search({ hl: 1, hl_pre: 'x'.repeat(40) });
    expect(qFirst.text).toBe(SEARCH_ERRORS.search.qNull.text);
  });

  test('When hl is not 1, hl_pre and hl_post are not read (a client without hl sees no change)', async () => {
    const res = await api.search({ q: 'fox', hl_pre: 'x'.repeat(40), hl_post: '\u0000' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).numfound).toBe(2);
  });

  test('When hl is absent or 0, the answer is byte for byte the one without it (but querytime)', async () => {
    const strip = (text: string) =>
      text.replace(/"querytime":\d+/, '').replace(/<querytime>\d+/, '');
    for (const format of ['json', 'xml']) {
      const plain = await api.search({ q: 'fox 경복궁', sort: 1 }, format);
      const off = await api.search({ q: 'fox 경복궁', sort: 1, hl: 0, hl_pre: '[' }, format);
      expect(strip(off.text)).toBe(strip(plain.text));
      expect(plain.text).not.toContain('highlight_');
    }
  });

  test('When the parameters are in a form body, they are read as well', async () => {
    const res = await api
      .search({})
      .type('form')
      .send({ q: 'fox', hl: '1', hl_pre: '«', hl_post: '»' });
    expect(JSON.parse(res.text).docs[0].highlight_body).toBe('«fox»');
  });
});

describe('what is marked', () => {
  test('When q has Korean particles, the stem is marked in every form of the word, one-syllable stems too', async () => {
    expect(await highlightOf('경복궁에서', 'ko-1')).toEqual([
      '책이 많은 도서관',
      '<em>경복궁</em>의 야경과 책을',
    ]);
    expect(await highlightOf('경복궁을', 'ko-2')).toEqual([
      '정책 토론',
      '<em>경복궁</em>에서는 밤에',
    ]);
    expect(await highlightOf('책은', 'ko-1')).toEqual([
      '<em>책</em>이 많은 도서관',
      '경복궁의 야경과 <em>책</em>을',
    ]);
  });

  test('When the text has characters outside the BMP or combining marks, the tags go around whole characters', async () => {
    expect(await highlightOf('fox école 𝒜', 'wide')).toEqual([
      '😀<em>fox</em>😀 <em>e\u0301cole</em> <em>𝒜</em>',
      '<em>fox</em>',
    ]);
  });

  test('When the title holds a character XML cannot carry, the XML leaves it out as everywhere, the JSON keeps it', async () => {
    const [title] = await highlightOf('bell', 'ctl');
    expect(title).toBe('fox\u0001<em>bell</em>');
    const xml = (await api.search({ q: 'bell', hl: 1 }, 'xml')).text;
    expect(xml).toContain('<highlight_title>fox&lt;em&gt;bell&lt;/em&gt;</highlight_title>');
  });

  test('When a body is longer than what is examined, a match after that point is not marked', async () => {
    const body = `${'lorem '.repeat(EXAMINED_UNITS / 6 + 10)}quokka`;
    await add('huge', { icontents_title: 'huge', icontents_body: body });
    const [title, snippet] = await highlightOf('quokka', 'huge');
    expect(title).toBe('huge');
    expect(snippet).toBe('lorem '.repeat(26).trim());
  });
});

describe('highlights and paging', () => {
  beforeAll(async () => {
    for (let i = 0; i < 130; i++)
      await add(`page-${i}`, {
        icontents_title: `kiwi ${i}`,
        icontents_body: i % 2 ? 'kiwi' : 'x',
      });
  });

  test('When pages are read with hl=1, every page has the same documents, in the same order, as without it', async () => {
    for (const params of [
      { q: 'kiwi', len: 100 },
      { q: 'kiwi', start: 100, len: 50 },
      { q: 'kiwi', sort: 1, start: 30, len: 10 },
    ]) {
      const plain = JSON.parse((await api.search(params)).text);
      const marked = JSON.parse((await api.search({ ...params, hl: 1 })).text);
      expect(marked.numfound).toBe(plain.numfound);
      expect(marked.docs.map((d: { dockey: string }) => d.dockey)).toEqual(
        plain.docs.map((d: { dockey: string }) => d.dockey),
      );
      for (const d of marked.docs) expect(d.highlight_title).toMatch(/^<em>kiwi<\/em> \d+$/);
    }
  });
});

/** Text XML and JSON both find hard: markup, entities, quotes, surrogate pairs, Hangul. */
const PIECES = [
  '<',
  '>',
  '&',
  '"',
  "'",
  '&amp;',
  ']]>',
  '<em>',
  ' ',
  '😀',
  '경복궁에서',
  '책',
  'zz',
];
const title = fc
  .array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 30 })
  .map((p) => p.join(''));

describe('highlights in JSON and XML (property)', () => {
  test('When any title is highlighted, the XML parsed gives the JSON string, and removing the tags and unescaping gives the title', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(title, async (t) => {
        const dockey = `p-${n++}`;
        await add(dockey, { icontents_title: `qq ${t}`, icontents_body: `경복궁 zz 책 ${t}` });
        const params = { q: `qq 경복궁 zz 책`, hl: 1, hl_pre: '<i>', hl_post: '</i>' };
        const json = JSON.parse((await api.search(params)).text).docs.find(
          (d: { dockey: string }) => d.dockey === dockey,
        );
        const xml = new DOMParser().parseFromString(
          (await api.search(params, 'xml')).text,
          'application/xml',
        );
        const doc = Array.from(xml.getElementsByTagName('doc')).find(
          (d) => d.getElementsByTagName('dockey')[0]!.textContent === dockey,
        )!;
        for (const field of ['highlight_title', 'highlight_body']) {
          expect(doc.getElementsByTagName(field)[0]!.textContent).toBe(
            deleteNonXmlChars(json[field]),
          );
        }
        const plain = json.highlight_title
          .replace(/<\/?i>/g, '')
          .replace(
            /&(amp|lt|gt|quot|#39);/g,
            (_m: string, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e],
          );
        expect(plain).toBe(`qq ${t}`);
        expect(json.highlight_title.startsWith('<i>qq</i>')).toBe(true);
        await api.delete(dockey);
      }),
      { numRuns: 40 },
    );
  });
});
