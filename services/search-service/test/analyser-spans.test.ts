import fc from 'fast-check';
import { normalise, spansOfTerms, terms, termSpans } from '../src/index/analyser';
import { traceNormalForm } from '../src/index/analysis/normal-form';

/** [term, the text it was made from] of each term of `text`. */
function spansOf(text: string): Array<[string, string]> {
  return termSpans(text).map((t) => [t.term, text.slice(t.start, t.end)]);
}

describe('analyser: term spans', () => {
  // each case: the text, then every term with the text it was made from (term→text, in order)
  test.each([
    ['경복궁에서', '경복→경복 복궁→복궁 궁에→궁에 에서→에서'],
    ['책을 읽다', '책을→책을 책→책 읽다→읽다'],
    ['Hello, World!', 'hello→Hello world→World'],
    ['ＡＢＣ１２３', 'abc123→ＡＢＣ１２３'],
    ['e\u0301cole', 'école→e\u0301cole'],
    ['ﬁnance', 'finance→ﬁnance'],
    ['x² ①', 'x2→x² 1→①'],
    ['㈜한국', '주→㈜ 한국→한국'],
    ['😀서울2024', '서울→서울 2024→2024'],
    ['ΣΊΣΥΦΟΣ', 'σίσυφος→ΣΊΣΥΦΟΣ'],
    ['İstanbul', 'i\u0307stanbul→İstanbul'],
    ['ｶﾞｲﾄﾞ', 'ガイ→ｶﾞｲ イド→ｲﾄﾞ'],
    ['2024년의 iPhone을', '2024→2024 년의→년의 년→년 iphone→iPhone 을→을'],
  ])('When the text is %j, each term comes with the text it was made from', (text, expected) => {
    expect(spansOf(text)).toEqual(expected.split(' ').map((pair) => pair.split('→')));
  });

  test('When Hangul is written with conjoining jamo, a bigram spans the jamo of both syllables', () => {
    const decomposed = '서울역'.normalize('NFD');
    expect(spansOf(decomposed)).toEqual([
      ['서울', '서울'.normalize('NFD')],
      ['울역', '울역'.normalize('NFD')],
    ]);
  });

  test('When a word is longer than the longest term, the term is cut but spans the whole word', () => {
    const long = 'a'.repeat(100);
    expect(termSpans(`x ${long} y`)[1]).toEqual({ term: 'a'.repeat(64), start: 2, end: 102 });
  });
});

describe('analyser: normal form traced', () => {
  /** each unit of the normal form's text with the [start, end) it came from, as "start-end" */
  const spans = (text: string) => {
    const trace = traceNormalForm(text);
    return Array.from(trace.text, (_c, k) => trace.span(k, k + 1).join('-')).join(' ');
  };

  test('When the text has no character that changes, every unit traces to itself', () => {
    expect(traceNormalForm('abc 서울').text).toBe('abc 서울');
    expect(spans('ab 서')).toBe('0-1 1-2 2-3 3-4');
  });

  test('When a character becomes several (ﬁ) or several become one (e + accent), the pieces say so', () => {
    expect(traceNormalForm('ﬁe\u0301').text).toBe('fié');
    expect(spans('ﬁe\u0301')).toBe('0-1 0-1 1-3');
  });

  test('When a span is asked for, the text is traced only that far, and further on demand', () => {
    const trace = traceNormalForm('ab ﬁ');
    expect(trace.span(3, 5)).toEqual([3, 4]);
    expect(trace.span(0, 2)).toEqual([0, 2]);
  });
});

/** Characters that change under NFKC or lower case, combine, or take two UTF-16 units. */
const TRICKY = [
  ...'aZ09 .,-_\'"<>&\t\n',
  ...'서울경복궁에서책을',
  ...'\u1109\u1165\u110b\u116e\u11af', // conjoining jamo of 서울
  ...'ㅎㅏㄴ', // compatibility jamo
  '\u0301',
  '\u0308',
  '\u0307',
  'Σ',
  'ς',
  'İ',
  'ß',
  'ﬁ',
  '①',
  '²',
  'Ａ',
  '㈜',
  'ｶ',
  'ﾞ',
  'ﾟ',
  'ー',
  '東',
  '😀',
  '𝒜',
  '\u200d',
  '\u3000',
  '\u00a0',
];

const trickyText = fc
  .array(fc.constantFrom(...TRICKY), { maxLength: 40 })
  .map((chars) => chars.join(''));
const anyText = fc.string({ unit: 'binary', maxLength: 40 });

function sigmaFree(s: string): string {
  return s.replace(/ς/g, 'σ');
}

describe('analyser: term spans (properties)', () => {
  test.each([
    ['tricky characters', trickyText],
    ['any Unicode text', anyText],
  ])(
    'When the text is made of %s, termSpans gives exactly the terms indexing gives, each span on character boundaries around its term',
    (_name, text) => {
      fc.assert(
        fc.property(text, (t) => {
          const spans = termSpans(t);
          expect(spans.map((s) => s.term)).toEqual(terms(t));
          for (const { term, start, end } of spans) {
            expect(0 <= start && start < end && end <= t.length).toBe(true);
            // never inside a surrogate pair, never before a mark of the span's last character
            expect(/[\uDC00-\uDFFF]/.test(t[start]!)).toBe(false);
            if (end < t.length) expect(/[\uDC00-\uDFFF]|\p{M}/u.test(t[end]!)).toBe(false);
            const surface = sigmaFree(normalise(t.slice(start, end)));
            expect(surface.includes(sigmaFree(term))).toBe(true);
          }
        }),
        { numRuns: 2000 },
      );
    },
  );
});

describe('analyser: spans of the query terms only (properties)', () => {
  const withWanted = (text: fc.Arbitrary<string>) =>
    text.chain((t) =>
      fc.tuple(fc.constant(t), fc.subarray([...new Set([...terms(t), 'a', '서울', 'σ', '책'])])),
    );

  test.each([
    ['tricky characters', trickyText],
    ['any Unicode text', anyText],
  ])(
    'When the text is made of %s, spansOfTerms gives the spans termSpans gives for those terms, in the same order',
    (_name, text) => {
      fc.assert(
        fc.property(withWanted(text), ([t, wanted]) => {
          const set = new Set(wanted);
          const all = termSpans(t).filter((s) => set.has(s.term));
          expect(spansOfTerms(t, set)).toEqual(all);
          expect(spansOfTerms(t, set, 2)).toEqual(all.slice(0, 2));
        }),
        { numRuns: 2000 },
      );
    },
  );

  test('When no word of the text can make a wanted term, nothing is analysed and nothing found', () => {
    expect(spansOfTerms('서울에서 맛집을', new Set(['부산']))).toEqual([]);
    expect(spansOfTerms('경복궁에서 야경을', new Set(['경복', '복궁']))).toEqual([
      { term: '경복', start: 0, end: 2 },
      { term: '복궁', start: 1, end: 3 },
    ]);
  });
});
