import { DOMParser } from '@xmldom/xmldom';
import type { SearchApp } from '../../src/app';
import { newCollection } from '../helpers/harness';
import { client } from '../helpers/requests';

/**
 * Highlights (hl=1, beyond the spec) as every engine must give them, through the HTTP API: part
 * of describeSearchContract, in a collection of its own. What the engines may do differently
 * (how a long body is cropped, how a Korean word is segmented) is left out: only matches every
 * engine makes alike and bounds every snippet keeps are asserted.
 */
export function describeHighlightContract(ctx: {
  app: () => SearchApp;
  settle: () => Promise<void>;
}): void {
  describe('highlights (hl=1, beyond the spec)', () => {
    let api: ReturnType<typeof client>;
    const lorem = (n: number) => Array.from({ length: n }, () => 'lorem').join(' ');
    const LONG_BODY = `${lorem(80)} the rare zebu grazes ${lorem(80)}`;
    const DOCS: Array<[string, Record<string, string | number>]> = [
      [
        'hl-1',
        { icontents_title: 'Quick brown fox', icontents_body: 'The fox jumps over the dog' },
      ],
      [
        'hl-2',
        {
          icontents_title: '경복궁에서 본 야경',
          icontents_body: '서울의 밤, 경복궁의 야경은 아름답다',
        },
      ],
      [
        'hl-3',
        {
          icontents_title: `Tom & Jerry <b>fox</b> "cartoon"`,
          icontents_body: `A <fox> & a "dog" in 'quotes'`,
        },
      ],
      ['hl-4', { icontents_title: 'long body', icontents_body: LONG_BODY }],
      [
        'hl-5',
        { icontents_title: 'Arctic tale <b>', icontents_body: 'plain', icontents_tags: 'walrus' },
      ],
    ];

    beforeAll(async () => {
      api = client(ctx.app(), await newCollection(ctx.app()));
      let regdate = 1_700_000_000;
      for (const [key, fields] of DOCS) {
        const res = await api.add(key, JSON.stringify({ ...fields, score_regdate: regdate++ }));
        if (res.status !== 200) throw new Error(`add ${key}: ${res.status} ${res.text}`);
      }
      await ctx.settle();
    });

    async function search(params: Record<string, string | number>) {
      const res = await api.search(params);
      expect(res.status).toBe(200);
      return JSON.parse(res.text) as {
        numfound: number;
        docs: Array<Record<string, string> & { dockey: string }>;
      };
    }

    async function highlighted(params: Record<string, string | number>, dockey: string) {
      const doc = (await search({ hl: 1, ...params })).docs.find((d) => d.dockey === dockey);
      return [doc?.highlight_title, doc?.highlight_body];
    }

    /** each row: q, then the title and body that document `dockey` comes back with */
    async function expectMarks(dockey: string, rows: Array<[string, string, string]>) {
      for (const [q, title, body] of rows)
        expect(await highlighted({ q }, dockey)).toEqual([title, body]);
    }

    test('When hl is not sent (or is 0), documents carry no highlight fields', async () => {
      const requests: Array<Record<string, string | number>> = [{ q: 'fox' }, { q: 'fox', hl: 0 }];
      for (const params of requests) {
        for (const doc of (await search(params)).docs) {
          expect(Object.keys(doc).filter((k) => k.startsWith('highlight'))).toEqual([]);
        }
      }
    });

    test('When hl=1, the title is marked and the body snippet too, in the original case', async () => {
      await expectMarks('hl-1', [
        ['fox', 'Quick brown <em>fox</em>', 'The <em>fox</em> jumps over the dog'],
        ['QUICK', '<em>Quick</em> brown fox', 'The fox jumps over the dog'],
      ]);
    });

    test('When q is a Korean word, its stem is marked inside the inflected word', async () => {
      const [title, body] = await highlighted({ q: '경복궁' }, 'hl-2');
      expect(title).toBe('<em>경복궁</em>에서 본 야경');
      expect(body).toContain('<em>경복궁</em>의');
    });

    test('When the text holds markup characters, they are escaped and the tags are the only markup', async () => {
      expect(await highlighted({ q: 'fox' }, 'hl-3')).toEqual([
        'Tom &amp; Jerry &lt;b&gt;<em>fox</em>&lt;/b&gt; &quot;cartoon&quot;',
        'A &lt;<em>fox</em>&gt; &amp; a &quot;dog&quot; in &#39;quotes&#39;',
      ]);
    });

    test('When hl_pre and hl_post are given, they are the tags', async () => {
      expect(await highlighted({ q: 'fox', hl_pre: '[[', hl_post: ']]' }, 'hl-1')).toEqual([
        'Quick brown [[fox]]',
        'The [[fox]] jumps over the dog',
      ]);
    });

    test('When the format is xml, a parser reads the same highlight strings as the JSON gives', async () => {
      const params = { q: 'fox', hl: 1, sort: 1 };
      const json = await search(params);
      const xml = new DOMParser().parseFromString(
        (await api.search(params, 'xml')).text,
        'application/xml',
      );
      const read = (name: string) =>
        Array.from(xml.getElementsByTagName(name)).map((e) => e.textContent);
      expect(read('highlight_title')).toEqual(json.docs.map((d) => d.highlight_title));
      expect(read('highlight_body')).toEqual(json.docs.map((d) => d.highlight_body));
      expect(read('highlight_title')).toContain(
        'Tom &amp; Jerry &lt;b&gt;<em>fox</em>&lt;/b&gt; &quot;cartoon&quot;',
      );
    });

    test('When the body is long, the snippet is a marked piece of it of at most 160 characters', async () => {
      const [, body] = await highlighted({ q: 'zebu' }, 'hl-4');
      expect(body).toContain('<em>zebu</em>');
      const plain = body!.replace(/<\/?em>/g, '');
      expect(LONG_BODY.includes(plain)).toBe(true);
      expect(Array.from(plain).length).toBeLessThanOrEqual(160);
    });

    test('When a document matches only in another icontents field, its title and body come unmarked', async () => {
      await expectMarks('hl-5', [
        ['walrus', 'Arctic tale &lt;b&gt;', 'plain'],
        ['walrus tale', 'Arctic <em>tale</em> &lt;b&gt;', 'plain'],
      ]);
    });

    test('When hl, hl_pre and hl_post are sent, numfound and the order stay as without them', async () => {
      const requests: Array<Record<string, string | number>> = [
        { q: 'fox' },
        { q: 'fox', sort: 1 },
        { q: 'the' },
        { q: '경복궁' },
        { q: 'nothing' },
      ];
      for (const params of requests) {
        const plain = await search(params);
        const marked = await search({ ...params, hl: 1, hl_pre: '<b>', hl_post: '</b>' });
        expect(marked.numfound).toBe(plain.numfound);
        expect(marked.docs.map((d) => d.dockey)).toEqual(plain.docs.map((d) => d.dockey));
      }
    });
  });
}
