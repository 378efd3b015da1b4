/**
 * Hangul syllable arithmetic. A precomposed syllable (U+AC00 … U+D7A3) is
 * 0xAC00 + (initial × 21 + medial) × 28 + final, so whether it ends in a consonant (batchim)
 * is one remainder. Korean particles choose their form by it (서울+은, 학교+는), which lets
 * the particle rules reject most words that merely end in a particle-like syllable (아이, 나이).
 */

const FIRST_SYLLABLE = 0xac00;
const LAST_SYLLABLE = 0xd7a3;
const FINALS = 28;
/** the final ㄹ: 으로 / 로 treat it like a vowel (서울로, not 서울으로) */
const FINAL_RIEUL = 8;

/** The syllable's final consonant: 0 none, 8 ㄹ, …; null when `syllable` is not Hangul. */
function finalIndex(syllable: string): number | null {
  const code = syllable.codePointAt(0);
  if (code === undefined || code < FIRST_SYLLABLE || code > LAST_SYLLABLE) return null;
  return (code - FIRST_SYLLABLE) % FINALS;
}

export function isHangulSyllable(char: string): boolean {
  return finalIndex(char) !== null;
}

/** What a particle form requires of the syllable before it. */
export type Attachment = 'consonant' | 'consonant-not-rieul' | 'vowel' | 'vowel-or-rieul' | 'any';

/**
 * Whether a particle of this attachment may follow `syllable`. A character that is not a
 * Hangul syllable (Han, or the end of a Latin word) tells nothing, so every form may follow.
 */
export function attaches(syllable: string, attachment: Attachment): boolean {
  const final = finalIndex(syllable);
  if (final === null || attachment === 'any') return true;
  switch (attachment) {
    case 'consonant':
      return final !== 0;
    case 'consonant-not-rieul':
      return final !== 0 && final !== FINAL_RIEUL;
    case 'vowel':
      return final === 0;
    case 'vowel-or-rieul':
      return final === 0 || final === FINAL_RIEUL;
  }
}
