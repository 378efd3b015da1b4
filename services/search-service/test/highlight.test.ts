import fc from 'fast-check';
import { queryTerms, terms } from '../src/index/analyser';
import { escapeHtml, fragment, readTagged } from '../src/index/highlight/fragment';
import { createHighlighter } from '../src/index/highlight/highlighter';
import { examinedLength, findMatches } from '../src/index/highlight/marked-text';
import { snippet } from '../src/index/highlight/snippet';

const EM = { pre: '<em>', post: '</em>' };

/** The text of `q`'s matches in `text`. */
function marked(text: string, q: string): string[] {
  const h = createHighlighter(q)(text, '');
  return h.title.marks.map(([s, e]) => text.slice(s, e));
}

function unescapeHtml(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#39);/g, (_m, name: string) => {
    return { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" }[name]!;
  });
}

/** What a client does to get the plain text back: the tags removed, then unescaped. */
function plain(fragmentText: string, tags = EM): string {
  return unescapeHtml(fragmentText.split(tags.pre).join('').split(tags.post).join(''));
}

function codePoints(s: string): number {
  return Array.from(s).length;
}

describe('highlight: what is marked', () => {
  test.each([
    ['경복궁에서 야경을 보았다', '경복궁', ['경복궁']],
    ['경복궁의 야경', '경복궁에서', ['경복궁']],
    ['책이 많다', '책을', ['책']],
    ['정책을 바꾸다', '책을', []],
    ['The Quick brown FOX', 'quick fox', ['Quick', 'FOX']],
    ['foxes and fox', 'fox', ['fox']],
    ['서울2024 행사', '서울 2024', ['서울2024']],
    ['iPhone을 샀다', 'iPhone', ['iPhone']],
    ['ＡＢＣ and e\u0301cole', 'abc école', ['ＡＢＣ', 'e\u0301cole']],
    ['서울에서 부산까지', '서울역', ['서울']],
    ['nothing here', '!!!', []],
    // spacing: a concatenation of q's words is marked; a split word by the parts it has
    ['database tuning', 'data base', ['database']],
    ['길고양이 돌보기', '길 고양이', ['길고양이']],
    ['서울 맛집 추천', '서울맛집', ['서울', '맛집']],
  ])('When the text is %j and q=%s, the marks are %j', (text, q, expected) => {
    expect(marked(text, q)).toEqual(expected);
  });

  test('When a field is longer than what is examined, only its start is marked and no word is cut', () => {
    const text = `${'fox '.repeat(10)}foxy fox`;
    const limit = 'fox '.repeat(10).length + 2; // inside "foxy"
    expect(examinedLength(text, limit)).toBe('fox '.repeat(10).length - 1);
    expect(findMatches(text, new Set(['fox']), limit)).toHaveLength(10);
  });
});

describe('highlight: the fragment', () => {
  test('When the text holds markup, it is escaped and the tags are the only markup', () => {
    const text = `<b>fox</b> & "Tom's"`;
    const h = createHighlighter('fox')(text, text);
    expect(fragment(h.title, EM)).toBe(
      '&lt;b&gt;<em>fox</em>&lt;/b&gt; &amp; &quot;Tom&#39;s&quot;',
    );
    expect(fragment(h.title, { pre: '[[', post: ']]' })).toBe(
      '&lt;b&gt;[[fox]]&lt;/b&gt; &amp; &quot;Tom&#39;s&quot;',
    );
  });

  test('When a mark ends inside a surrogate pair, the tag goes after the whole character', () => {
    expect(fragment({ text: 'a😀b', marks: [[1, 2]] }, EM)).toBe('a<em>😀</em>b');
    expect(fragment({ text: 'a😀b', marks: [[2, 4]] }, EM)).toBe('a<em>😀b</em>');
  });

  test('When an engine marked text with its own tags, they are read back as marks', () => {
    const tags = { pre: '\uE000', post: '\uE001' };
    expect(readTagged('a \uE000fox\uE001 <b>', tags)).toEqual({
      text: 'a fox <b>',
      marks: [[2, 5]],
    });
    expect(readTagged('plain', tags)).toEqual({ text: 'plain', marks: [] });
    expect(readTagged('\uE000a\uE001\uE000b\uE001', tags)).toEqual({ text: 'ab', marks: [[0, 2]] });
    for (const bad of ['\uE000open', 'close\uE001', '\uE000a\uE000b\uE001\uE001', '\uE001\uE000'])
      expect(readTagged(bad, tags)).toBeNull();
  });
});

describe('highlight: the body snippet', () => {
  const words = (n: number, word = 'lorem') => Array.from({ length: n }, () => word).join(' ');

  test('When the body is short, the snippet is the whole body', () => {
    const h = createHighlighter('fox')('', ' a fox ');
    expect(h.body).toEqual({ text: ' a fox ', marks: [[3, 6]] });
  });

  test('When the body is long, the snippet is at most 160 characters around the match, cut at word boundaries', () => {
    const body = `${words(100)} the quick fox jumps ${words(100)}`;
    const h = createHighlighter('fox')('', body);
    expect(codePoints(h.body.text)).toBeLessThanOrEqual(160);
    expect(body.includes(h.body.text)).toBe(true);
    expect(h.body.text).toMatch(/^lorem .* the quick fox jumps .* lorem$/);
    const [s, e] = h.body.marks[0]!;
    expect(h.body.text.slice(s, e)).toBe('fox');
    // the match is about in the middle
    expect(Math.abs(s - (h.body.text.length - e))).toBeLessThan(12);
  });

  test('When the words of q are close together somewhere, that part is shown rather than an earlier lone match', () => {
    const body = `fox ${words(60)} the fox and the dog ${words(60)}`;
    const h = createHighlighter('fox dog')('', body);
    expect(fragment(h.body, EM)).toContain('the <em>fox</em> and the <em>dog</em>');
  });

  test('When nothing matches in the body, the snippet is its first 160 characters, cut at a word boundary', () => {
    const body = words(100, 'abcdefg');
    const h = createHighlighter('fox')('fox', body);
    expect(h.body.marks).toEqual([]);
    expect(h.body.text).toBe(words(20, 'abcdefg'));
  });

  test('When the text has no spaces (Japanese, or one long word), it is cut where the count ends', () => {
    const body = `${'東'.repeat(300)}東京${'東'.repeat(300)}`;
    const h = createHighlighter('東京')('', body);
    expect(codePoints(h.body.text)).toBe(160);
    expect(fragment(h.body, EM)).toContain('<em>東京</em>');
  });

  test('When the body has characters outside the BMP, the window counts them as one character each', () => {
    const body = `${'😀'.repeat(200)} fox ${'😀'.repeat(200)}`;
    const h = createHighlighter('fox')('', body);
    expect(codePoints(h.body.text)).toBeLessThanOrEqual(160);
    expect(h.body.text.length).toBeGreaterThan(160);
    expect(h.body.text).toContain(' fox ');
  });

  test('When a match is longer than the window, the window is cut inside it', () => {
    const long = 'x'.repeat(500);
    const h = snippet(long, findMatches(long, new Set(terms(long))), 160);
    expect(h).toEqual({ text: 'x'.repeat(160), marks: [[0, 160]] });
  });
});

/** Characters that make escaping, counting and marking hard. */
const PIECES = [
  ' ',
  ' ',
  '\n',
  '&',
  '<',
  '>',
  '"',
  "'",
  '&amp;',
  '<em>',
  '</em>',
  ']]>',
  'fox',
  'Fox',
  'dog',
  '경복궁',
  '에서',
  '책',
  '을',
  '서울',
  '😀',
  '𝒜',
  'e\u0301',
  'Σ',
  '東京',
];
const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 120 }).map((p) => p.join(''));
const query = fc
  .array(fc.constantFrom('fox', '경복궁', '책을', '서울', 'dog', '東京', '𝒜', 'σ', 'em'), {
    minLength: 1,
    maxLength: 3,
  })
  .map((q) => q.join(' '));

describe('highlight: escaping and windows (properties)', () => {
  test('When any text is highlighted, removing the tags and unescaping gives back the window, an exact piece of the text', () => {
    fc.assert(
      fc.property(text, text, query, (title, body, q) => {
        const h = createHighlighter(q, 40)(title, body);
        const t = fragment(h.title, EM);
        const b = fragment(h.body, EM);
        expect(plain(t)).toBe(title);
        expect(plain(b)).toBe(h.body.text);
        expect(body.includes(h.body.text)).toBe(true);
        expect(codePoints(h.body.text)).toBeLessThanOrEqual(40);
        if (findMatches(body, new Set(queryTerms(q))).length > 0)
          expect(h.body.marks.length).toBeGreaterThan(0);
        // escaped text never holds the tags: each tag is one of ours
        expect(escapeHtml(title).includes('<')).toBe(false);
      }),
      { numRuns: 1500 },
    );
  });

  test('When any text is highlighted, no tag splits a character: the fragment is well-formed UTF-16 and UTF-8', () => {
    fc.assert(
      fc.property(text, query, (body, q) => {
        const h = createHighlighter(q, 40)(body, body);
        for (const f of [fragment(h.title, EM), fragment(h.body, EM)]) {
          expect(Buffer.from(f, 'utf8').toString('utf8')).toBe(f);
          expect(f).not.toMatch(/<\/?em>\p{M}/u);
        }
      }),
      { numRuns: 1500 },
    );
  });

  test('When a query word occurs in the text as a word, it is marked', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('fox', 'dog', '경복궁에서', 'cat'), { maxLength: 30 }),
        (ws) => {
          const body = ws.join(' ');
          const h = createHighlighter('fox 경복궁')(body, body);
          const marks = h.title.marks.map(([s, e]) => body.slice(s, e));
          expect(marks).toEqual(
            ws.filter((w) => w !== 'dog' && w !== 'cat').map((w) => w.slice(0, 3)),
          );
        },
      ),
    );
  });
});
