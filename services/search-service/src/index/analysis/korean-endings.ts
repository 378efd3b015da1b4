import type { Attachment } from './hangul';

/**
 * The word-final endings the Korean particle step knows (data; the rules that use it are in
 * korean-particles.ts): case and other particles (josa), common particle pairs, the copula
 * and the endings of 하다 / 되다 verbs made from nouns (개발했다, 출시된).
 *
 * `query` is the shortest stem, in syllables, that a query word keeps when the ending is split
 * off; 0: never split off in a query. Endings that end two-syllable nouns need a stem of two
 * (의: 회의 강의; 이: 놀이 길이; 가: 휴가; 로: 도로), those that end three-syllable nouns too a
 * stem of three (도: 제주도 경기도 해상도; 만: 이천만), which still gives two bigrams, so a noun
 * wrongly split keeps most of its precision; some are never split (대로: 강남대로). Documents
 * split every ending (see oneSyllableStem), so any form a query reduces to is found.
 */
export interface Ending {
  text: string;
  /** what the syllable before it must end in (서울+은, 학교+는) */
  after: Attachment;
  query: 0 | 1 | 2 | 3;
}

type Row = [texts: string, after: Attachment, query: Ending['query']];

const ROWS: Row[] = [
  // case particles
  ['은 을', 'consonant', 1],
  ['는 를', 'vowel', 1],
  ['이', 'consonant', 2],
  ['가', 'vowel', 2],
  ['에 에서 에게 에게서 한테 한테서 께서 까지 부터 보다 처럼 마다 조차 마저 밖에 만큼', 'any', 1],
  // 의 and 께 end two-syllable words (회의 강의 정의, 함께): only from longer words
  ['의 께 하고 들', 'any', 2],
  ['으로 으로서 으로써 으로도 으로만', 'consonant-not-rieul', 1],
  // 로 ends nouns too (도로 차로 활주로): only from longer words
  ['로 로서 로써 로도 로만', 'vowel-or-rieul', 2],
  ['과 이랑 이나', 'consonant', 2],
  ['와', 'vowel', 2],
  ['이든 이야', 'consonant', 0],
  ['도 만', 'any', 3],
  ['대로 뿐 같이 씩', 'any', 0],
  // pairs with 도 / 만, which a query splits off alone only from long words
  ['에도 에서도 에게도 한테도 까지도 부터도 에만 에서만 에게만 까지만', 'any', 1],
  // the copula
  ['입니다', 'any', 1],
  ['이에요 이라고 이라는', 'consonant', 1],
  ['예요', 'vowel', 1],
  ['이다 이었다 이란 이며 이고 이지만', 'consonant', 2],
  ['였다 라고 라는 지만', 'vowel', 2],
  // verbs made from nouns with 하다 / 되다 (개발하는, 출시됐다)
  [
    '하다 한다 했다 합니다 했습니다 하는 하여 해서 하면 하기 했던 하며 해요 하게 한 할 ' +
      '되다 된다 됐다 되었다 됩니다 된 되는 되어 되고 되면 되며',
    'any',
    2,
  ],
];

/**
 * Nouns that end like a particle and are common enough to matter (고속도로 is not 고속도 + 로):
 * a word ending in one of them is never split there.
 */
export const NOUNS_LIKE_ENDINGS = [
  // -이 nouns whose first two syllables are a word of their own (고양 a city, 어린 young)
  '고양이',
  '어린이',
  '젊은이',
  '늙은이',
  '도로',
  '교차로',
  '정신과',
  '신경과',
  '산부인과',
  '무제한',
];

/**
 * Particles that also end many two-syllable nouns (회의 강의 정의, 속도 지도 강도, 불만
 * 대만): a two-syllable document word ending in one is not taken for a one-syllable stem
 * plus particle (회의 does not give 회), except after a number (2024년의 gives 년).
 */
export const NOUN_FINAL_PARTICLES: ReadonlySet<string> = new Set(['의', '도', '만']);

/** Every ending, longest first (so 에서 is tried before 서-less 에 would be). */
export const ENDINGS: readonly Ending[] = ROWS.flatMap(([texts, after, query]) =>
  texts.split(' ').map((text) => ({ text, after, query })),
).sort((a, b) => b.text.length - a.text.length);
