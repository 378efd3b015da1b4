import { attaches, isHangulSyllable } from './hangul';
import { ENDINGS, NOUN_FINAL_PARTICLES, NOUNS_LIKE_ENDINGS, type Ending } from './korean-endings';

/**
 * The Korean particle step, without a dictionary: a word-final particle or ending
 * (korean-endings.ts) is split off so that 경복궁에서 (query) and 경복궁의, 경복궁을
 * (documents) meet at their stem 경복궁. The analyser turns a stem into syllable bigrams as
 * before, and the bigrams of a stem are among the bigrams of every word that contains it, so
 * documents need nothing new for stems of two syllables or more; only a one-syllable stem
 * (책 of 책을) becomes a term of its own (oneSyllableStem).
 *
 * Precision comes from three rules: a particle must fit the syllable before it (은/이/을/과/으로
 * after a final consonant, 는/가/를/와/로 after a vowel), so 아이 and 나이 keep their 이; a
 * query splits off only the endings that few nouns end in, and only from words long enough
 * (korean-endings.ts: `query`); and a short list of nouns that end like a particle
 * (고속도로) is never split.
 */

/** At most this many endings are split off one word (경복궁 + 에서 + 는 … ). */
const MAX_ENDINGS = 3;

/** Endings by their first character, longest first: a document word is read left to right. */
const ENDINGS_BY_FIRST = new Map<string, Ending[]>();
for (const ending of ENDINGS) {
  const list = ENDINGS_BY_FIRST.get(ending.text[0]!) ?? [];
  list.push(ending);
  ENDINGS_BY_FIRST.set(ending.text[0]!, list);
}
/** No chain of endings is longer than this (a longer word cannot be syllable + endings). */
const LONGEST_CHAIN = MAX_ENDINGS * Math.max(...ENDINGS.map((e) => e.text.length));

const anyEnding = () => true;
const notNounFinal = (e: Ending) => !NOUN_FINAL_PARTICLES.has(e.text);
/** the particles that need a word before them (not 도 / 만, which are also numbers: 10도, 3만) */
const particleOfNumber = (e: Ending) => e.query === 1 || e.query === 2;

/**
 * `text` is a chain of at most `left` endings, the first fitting the syllable `before` (null:
 * unknown, as after a Latin word or a number) and accepted by `first`, each next one fitting
 * the ending before it.
 */
function isEndingChain(
  text: string,
  before: string | null,
  left: number,
  first: (e: Ending) => boolean,
): boolean {
  if (left === 0) return false;
  for (const e of ENDINGS_BY_FIRST.get(text[0]!) ?? []) {
    if (!text.startsWith(e.text) || !first(e)) continue;
    if (before !== null && !attaches(before, e.after)) continue;
    const rest = text.slice(e.text.length);
    if (rest === '' || isEndingChain(rest, e.text.at(-1)!, left - 1, anyEnding)) return true;
  }
  return false;
}

/**
 * A document word that is one syllable plus particles (책을, 집에서는, 년의 of 2024년의): that
 * syllable, which the analyser adds as a term so that queries reduced to it (책은 → 책) find
 * the word. Every ending counts here, also those a query never splits off (a document only
 * gains terms, and a query asks for a one-syllable stem only when it had a particle itself),
 * except that 의 / 도 / 만 right after the syllable count only after a number (회의 is not
 * 회 + 의; 2024년의 is 년 + 의).
 */
export function oneSyllableStem(word: string, afterNumber = false): string | null {
  if (word.length < 2 || word.length > LONGEST_CHAIN + 1) return null;
  const first = word[0]!;
  if (!isHangulSyllable(first)) return null;
  const particle = afterNumber ? anyEnding : notNounFinal;
  return isEndingChain(word.slice(1), first, MAX_ENDINGS, particle) ? first : null;
}

/** What comes before a Hangul run inside one word (runs are cut where the script changes). */
export type RunStart = 'word' | 'digits' | 'other';

/**
 * The stem a query word is searched by: its endings split off, longest first, at most
 * MAX_ENDINGS of them, while the stem keeps the ending's minimum length (korean-endings.ts).
 * A run that follows a number is a counter (2024년의, 3명이): its stem may be one syllable and
 * every ending may go. A run after a Latin word that is nothing but particles (iPhone을,
 * AI가) is dropped: '' is returned.
 */
export function queryStem(run: string, start: RunStart = 'word'): string {
  if (start === 'other' && isEndingChain(run, null, MAX_ENDINGS, anyEnding)) return '';
  if (start === 'digits' && isEndingChain(run, null, MAX_ENDINGS, particleOfNumber)) return '';
  let stem = run;
  for (let i = 0; i < MAX_ENDINGS; i++) {
    const shorter = splitEnding(stem, start === 'digits');
    if (shorter === null) break;
    stem = shorter;
  }
  return stem;
}

/** `word` without its last ending, or null when it has none a query may split off. */
function splitEnding(word: string, afterNumber: boolean): string | null {
  if (NOUNS_LIKE_ENDINGS.some((noun) => word.endsWith(noun))) return null;
  for (const e of ENDINGS) {
    if (word.length <= e.text.length || !word.endsWith(e.text)) continue;
    const stem = word.slice(0, word.length - e.text.length);
    if (!attaches(stem.at(-1)!, e.after)) continue;
    // the longest ending that fits decides: 강남대로 ends in 대로 (kept), not in 로
    const minStem = afterNumber ? 1 : e.query === 0 ? Infinity : e.query;
    return Array.from(stem).length >= minStem ? stem : null;
  }
  return null;
}
