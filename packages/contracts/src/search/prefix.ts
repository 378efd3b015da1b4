import { SEARCH_HTTP_ERRORS, type HttpAnswer } from './http-errors';
import { failure, success, type Result } from './result';

/**
 * Search-as-you-type, beyond the spec: with prefix=1 the last word of q, when q ends inside it
 * (no separator after it), also matches every indexed term that starts with it. A request
 * without prefix=1 is answered exactly as the spec says; the check comes after every
 * parameter of the spec (an invalid sort answers its spec row first).
 *
 * - prefix: 1 on; 0, missing, empty or blank off; anything else → 400 prefix parameter is
 *   invalid.
 *
 * Which words qualify (the engines apply the same limits):
 * - a word of a bigram script (Hangul, Han, kana) by whole syllables: only a last word that is
 *   PREFIX_MIN_SYLLABLES (one) syllable long becomes a prefix; a longer one already matches
 *   every word that contains it through its bigrams;
 * - any other word (Latin, digits, …) of at least PREFIX_MIN_CHARS characters; a shorter one
 *   is matched as a whole word, as without prefix.
 */

type Raw = string | undefined | null;

/** Shortest last word of a non-bigram script (Latin, digits, …) searched as a prefix. */
export const PREFIX_MIN_CHARS = 2;

/** Shortest last word of a bigram script (Hangul, Han, kana) searched as a prefix, in syllables. */
export const PREFIX_MIN_SYLLABLES = 1;

/** prefix=1: true; off: false. */
export function parsePrefixParam(raw: Raw): Result<boolean, HttpAnswer> {
  const text = raw?.trim() ?? '';
  if (text === '' || text === '0') return success(false);
  return text === '1' ? success(true) : failure(SEARCH_HTTP_ERRORS.prefixInvalid);
}
