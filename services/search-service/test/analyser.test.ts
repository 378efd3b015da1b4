import fc from 'fast-check';
import { distinctTerms, MAX_TERM_CHARS, normalise, queryTerms, terms } from '../src/index/analyser';
import { oneSyllableStem } from '../src/index/analysis/korean-particles';
import { matches, testFinds, testMisses } from './helpers/term-match';

/** One test per [text, terms] case, named `title`: terms(text) are those terms, in order. */
function testTerms(title: string, cases: Array<[text: string, terms: string[]]>): void {
  test.each(cases)(title, (text, expected) => {
    expect(terms(text)).toEqual(expected);
  });
}

describe('analyser: Hangul', () => {
  testTerms('When the text is %s, the terms are its syllable bigrams %j', [
    ['서울에서', ['서울', '울에', '에서']],
    ['맛집을', ['맛집', '집을']],
    ['서울', ['서울']],
    ['서', ['서']],
    ['한국어 형태소', ['한국', '국어', '형태', '태소']],
  ]);

  testFinds('When a document says %s, q=%s finds it', [
    ['서울에서 맛집을 찾았다', '서울'],
    ['서울에서 맛집을 찾았다', '맛집'],
    ['서울에서 맛집을 찾았다', '서울 맛집'],
    ['서울에서 맛집을 찾았다', '찾았다'],
    ['부산의 바다', '바다'],
    ['대한민국 서울특별시', '서울특별시'],
    ['한 사람', '한'],
  ]);

  testMisses('When a document says %s, q=%s does not find it', [
    ['서울에서 맛집을', '부산'],
    ['서울에서 맛집을', '서울 부산'],
    ['울산', '서울'],
    ['서울', '서울역'],
    ['서울에서', '서'],
  ]);

  test('When Hangul is written with conjoining jamo, NFKC composes it first', () => {
    const decomposed = '서울'.normalize('NFD');
    expect(decomposed).not.toBe('서울');
    expect(terms(decomposed)).toEqual(['서울']);
    // compatibility forms are folded by NFKC too
    expect(normalise('㈜')).toBe('(주)');
  });
});

describe('analyser: Latin, digits and other scripts', () => {
  testTerms('When the text is %j, the terms are %j', [
    ['Hello, World!', ['hello', 'world']],
    ['SEARCH search SeArCh', ['search', 'search', 'search']],
    ['ＡＢＣ１２３', ['abc123']],
    ['iPhone15 Pro', ['iphone15', 'pro']],
    ['COVID-19 2024.05.01', ['covid', '19', '2024', '05', '01']],
    ["don't stop_me now", ['don', 't', 'stop', 'me', 'now']],
    ['Café naïve Ünïcödé', ['café', 'naïve', 'ünïcödé']],
    ['Straße ΣΊΣΥΦΟΣ', ['straße', 'σίσυφος']],
    ['Москва', ['москва']],
    ['e\u0301cole', ['école']],
    ['x²', ['x2']],
    ['ﬁnance', ['finance']],
    ['', []],
    ['  ..!!  ', []],
    ['😀 🎉 ♥', []],
  ]);

  testFinds('When a document says %s, q=%s finds it', [
    ['The Quick Brown Fox', 'quick fox'],
    ['The Quick Brown Fox', 'QUICK'],
    ['Version 2024 release', '2024'],
    ['e-mail me at a@b.com', 'b com'],
    ['서울2024 행사', '2024'],
    ['서울2024 행사', '서울'],
    ['東京タワーに行った', '東京'],
    ['東京タワーに行った', 'タワー'],
  ]);

  testMisses('When a document says %s, q=%s does not find it (whole words, no stemming)', [
    ['The Quick Brown Fox', 'quick dog'],
    ['foxes', 'fox'],
    ['2024', '202'],
    ['iphone15', 'iphone'],
  ]);
});

describe('analyser: limits and sets', () => {
  test('When a word is longer than MAX_TERM_CHARS, it is cut the same way in documents and queries', () => {
    const long = 'a'.repeat(MAX_TERM_CHARS + 10);
    expect(terms(long)).toEqual(['a'.repeat(MAX_TERM_CHARS)]);
    expect(matches(long, long)).toBe(true);
    expect(matches(long, 'a'.repeat(MAX_TERM_CHARS + 3))).toBe(true);
    const emoji = '𝒜'.repeat(MAX_TERM_CHARS + 5);
    expect(Array.from(terms(emoji)[0]!)).toHaveLength(MAX_TERM_CHARS);
  });

  test('When several texts are analysed together, each term appears once, in first-seen order', () => {
    expect(distinctTerms(['b a', 'A c b'])).toEqual(['b', 'a', 'c']);
    expect(queryTerms('서울 서울 맛집')).toEqual(['서울', '맛집']);
  });

  test('When q has no word characters, it has no terms (and matches nothing)', () => {
    expect(queryTerms('!!! ...')).toEqual([]);
    expect(matches('anything', '!!!')).toBe(false);
  });

  test('When the analyser runs twice on the same text, it gives the same terms (pure)', () => {
    const text = '서울에서 Hello 123 東京';
    expect(terms(text)).toEqual(terms(text));
  });
});

/**
 * The analyser's steps 2–7 as regular expressions, as the module's docblock states them (the
 * scan of the analyser reads the characters itself): every term of a normalised text, in order.
 */
function termsByDefinition(normal: string): string[] {
  const BIGRAM_SCRIPTS =
    '\\p{Script=Hangul}\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}';
  const runs = new RegExp(`[${BIGRAM_SCRIPTS}\\u30FC]+|[^${BIGRAM_SCRIPTS}\\u30FC]+`, 'gu');
  const bigramChar = new RegExp(`[${BIGRAM_SCRIPTS}]`, 'u');
  const cut = (t: string) => Array.from(t).slice(0, MAX_TERM_CHARS).join('');
  const out: string[] = [];
  for (const word of normal.matchAll(/[\p{L}\p{M}\p{N}]+/gu)) {
    let afterNumber = false;
    for (const run of word[0].matchAll(runs)) {
      const chars = Array.from(run[0]);
      if (!bigramChar.test(chars[0]!) && chars[0] !== '\u30FC') {
        out.push(cut(run[0]));
      } else if (chars.length === 1) {
        out.push(run[0]);
      } else {
        for (let k = 1; k < chars.length; k++) out.push(chars[k - 1]! + chars[k]!);
      }
      const stem = oneSyllableStem(run[0], afterNumber);
      if (stem !== null) out.push(stem);
      afterNumber = /^\p{N}+$/u.test(run[0]);
    }
  }
  return out;
}

describe('analyser: the scan', () => {
  const PIECES = [
    'a',
    'Z',
    '1',
    '٣',
    '²',
    'Ⅻ',
    '서',
    '울',
    '을',
    '에서',
    '책',
    '는',
    '년',
    '의',
    '漢',
    'ひ',
    'カ',
    'ー',
    'ｶ',
    'ﾞ',
    'e\u0301',
    '\u0301',
    ' ',
    '.',
    '_',
    '😀',
    '𝐀',
    '𠀀',
    '\uD800',
    'ς',
    'Σ',
    'ß',
    'ﬁ',
    'ㄱ',
    'ᄀ',
    'ᅡ',
    'ㆍ',
    '·',
    '〇',
    '々',
    '\t',
    'x'.repeat(70),
  ];
  const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 16 }).map((p) => p.join(''));

  test('When any text is analysed, its terms are those of the regular expressions (property)', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(terms(t)).toEqual(termsByDefinition(normalise(t)));
      }),
      { numRuns: 3000 },
    );
  });

  test('When a word holds any BMP character, the scan classes it as the regular expressions do', () => {
    const expected: string[] = [];
    const actual: string[] = [];
    for (let code = 0; code < 0x10000; code++) {
      const t = `가${String.fromCharCode(code)}나a${String.fromCharCode(code)}1`;
      const normal = normalise(t);
      expected.push(
        termsByDefinition(normal)
          .map((s) => s.replace(/@[^@]*$/, ''))
          .join(' '),
      );
      actual.push(terms(t).join(' '));
    }
    expect(actual).toEqual(expected);
  });
});
