import { PREFIX_MIN_CHARS } from '@hub/contracts';
import fc from 'fast-check';
import { documentMatches, prefixQuery, prefixUpperBound } from '../src/index/prefix-expansion';

/**
 * The prefix rule of prefix=1 (index/prefix-expansion.ts): which term of q is a prefix, and
 * the range of terms it matches. Pure: the engines, the engine model and the bench's brute
 * force apply it.
 */

describe('prefixQuery: which term is searched as a prefix', () => {
  test.each([
    ['a Latin word of 2 characters or more', 'sea', { terms: [], prefix: 'sea' }],
    ['the last of several words', 'quiet sea', { terms: ['quiet'], prefix: 'sea' }],
    ['a word shorter than the minimum', 's', { terms: ['s'], prefix: null }],
    ['digits like any other non-bigram word', 'ab 20', { terms: ['ab'], prefix: '20' }],
    ['a one-syllable Hangul word', '서', { terms: [], prefix: '서' }],
    ['a one-syllable stem (particle split off)', '책을', { terms: [], prefix: '책' }],
    [
      'a Hangul word of two syllables (its bigrams already match)',
      '서울',
      { terms: ['서울'], prefix: null },
    ],
    ['a word followed by a separator', 'sea.', { terms: ['sea'], prefix: null }],
    ['a last word also required by an earlier word', 'sea sea', { terms: ['sea'], prefix: null }],
    ['a mixed word: its last run', '서울ab', { terms: ['서울'], prefix: 'ab' }],
    ['upper case: the analyser lower-cases first', 'SEA', { terms: [], prefix: 'sea' }],
    ['no word at all', '!!!', { terms: [], prefix: null }],
  ])('When q is %s, the rule gives its required terms and prefix', (_what, q, expected) => {
    expect(prefixQuery(q, true)).toEqual(expected);
  });

  test('When prefix is off, q keeps every term whole', () => {
    expect(prefixQuery('quiet sea', false)).toEqual({ terms: ['quiet', 'sea'], prefix: null });
    expect(prefixQuery('서', false)).toEqual({ terms: ['서'], prefix: null });
  });

  test('When a Latin word has PREFIX_MIN_CHARS characters, it is a prefix; one fewer is not', () => {
    expect(prefixQuery('x'.repeat(PREFIX_MIN_CHARS), true).prefix).not.toBeNull();
    expect(prefixQuery('x'.repeat(PREFIX_MIN_CHARS - 1), true).prefix).toBeNull();
  });
});

describe('documentMatches and prefixUpperBound', () => {
  test('When a document has the other terms and a term that starts with the prefix, it matches', () => {
    const pq = prefixQuery('quiet sea', true);
    expect(documentMatches(new Set(['quiet', 'seaside']), pq)).toBe(true);
    expect(documentMatches(new Set(['quiet', 'ocean']), pq)).toBe(false);
    expect(documentMatches(new Set(['seaside']), pq)).toBe(false);
  });

  test('When terms are compared in code point order, [prefix, upper) is exactly the terms that start with the prefix', () => {
    const codePointOrder = (a: string, b: string) =>
      Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
    const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(text, fc.array(text, { maxLength: 30 }), (prefix, terms) => {
        const upper = prefixUpperBound(prefix);
        for (const t of terms) {
          const inRange = codePointOrder(t, prefix) >= 0 && codePointOrder(t, upper) < 0;
          expect(inRange).toBe(t.startsWith(prefix));
        }
        const t = prefix + terms.join('');
        expect(codePointOrder(t, prefix) >= 0 && codePointOrder(t, upper) < 0).toBe(true);
      }),
    );
  });
});
