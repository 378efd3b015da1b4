/**
 * The form the analyser compares text in: NFKC, then lower case (locale-independent). And the
 * same form with, for every UTF-16 unit of it, the piece of the original text it came from, so
 * that a term found in the normal form can be traced back to what a reader sees (highlights).
 *
 * The trace normalises the text piece by piece and checks, unit by unit, that the pieces give
 * exactly the normal form of the whole text; the terms are always made from the whole text's
 * normal form, so tracing never changes a term. A piece is a character with every following
 * character that NFKC may combine with it (combining marks, vowel and final jamo,
 * compatibility jamo, halfwidth kana voicing marks), so a span never splits a character from its marks or
 * a syllable from its jamo. Lower case differs only at a final sigma (σ or ς by its
 * neighbours: same length), which the check allows. Should the pieces ever not add up,
 * coarser pieces are tried (split at white space only), and at worst the whole text is one
 * piece: the trace is then exact but coarse, never wrong.
 */

/** NFKC + lower case: the form both documents and queries are compared in. */
export function normalise(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

export interface NormalisedText {
  /** normalise(original) */
  readonly text: string;
  /** for each UTF-16 unit of `text`: where its piece of the original starts … */
  readonly from: Int32Array;
  /** … and ends (exclusive), in UTF-16 units of the original */
  readonly to: Int32Array;
}

const MARK = /\p{M}/u;
const WHITE_SPACE = /\s/u;

const SIGMA = 0x3c3;
const FINAL_SIGMA = 0x3c2;

/** Where the piece starting at `i` ends (exclusive). */
type PieceRule = (text: string, i: number) => number;

function nextCodePoint(text: string, i: number): number {
  const code = text.charCodeAt(i);
  return code >= 0xd800 && code <= 0xdbff && i + 1 < text.length ? i + 2 : i + 1;
}

/**
 * A character NFKC may combine with the character before it: marks (kana voicing marks
 * included), the vowel and final jamo (an initial jamo starts a syllable), compatibility and
 * halfwidth jamo (some become finals), spacing and halfwidth kana voicing marks.
 */
function joinsPrevious(code: number): boolean {
  // below U+0300 (the first combining mark), Hangul syllables and CJK ideographs never do
  if (code < 0x300 || (code >= 0xac00 && code <= 0xd7a3) || (code >= 0x4e00 && code <= 0x9fff))
    return false;
  return (
    (code >= 0x1160 && code <= 0x11ff) ||
    (code >= 0xd7b0 && code <= 0xd7ff) ||
    (code >= 0x3131 && code <= 0x318e) ||
    (code >= 0xffa0 && code <= 0xffdc) ||
    code === 0x309b ||
    code === 0x309c ||
    code === 0xff9e ||
    code === 0xff9f ||
    MARK.test(String.fromCodePoint(code))
  );
}

function isWhiteSpace(code: number): boolean {
  if (code < 0x80) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return WHITE_SPACE.test(String.fromCodePoint(code));
}

/** A character and the characters that may combine with it. */
const byCharacter: PieceRule = (text, i) => {
  let j = nextCodePoint(text, i);
  while (j < text.length && joinsPrevious(text.codePointAt(j)!)) j = nextCodePoint(text, j);
  return j;
};

/** A run of white space, or a run of anything else. */
const byWhiteSpace: PieceRule = (text, i) => {
  const space = isWhiteSpace(text.codePointAt(i)!);
  let j = nextCodePoint(text, i);
  while (j < text.length && isWhiteSpace(text.codePointAt(j)!) === space)
    j = nextCodePoint(text, j);
  return j;
};

const wholeText: PieceRule = (text) => text.length;

/**
 * The normal form of a single BMP character that needs no call to normalize(): ASCII (lower
 * case), Hangul syllables, CJK ideographs, kana — the bulk of the text this service sees.
 * -1 when the character needs the general path.
 */
function simpleUnit(code: number): number {
  if (code < 0x80) return code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
  if (code >= 0xac00 && code <= 0xd7a3) return code;
  if (code >= 0x4e00 && code <= 0x9fff) return code;
  if ((code >= 0x3041 && code <= 0x3096) || (code >= 0x30a1 && code <= 0x30fa)) return code;
  return -1;
}

function sameUnit(a: number, b: number): boolean {
  return a === b || ((a === SIGMA || a === FINAL_SIGMA) && (b === SIGMA || b === FINAL_SIGMA));
}

/** Traces `normal` (the whole text's normal form) piece by piece; false when they differ. */
function trace(
  original: string,
  normal: string,
  rule: PieceRule,
  from: Int32Array,
  to: Int32Array,
): boolean {
  let k = 0;
  for (let i = 0; i < original.length;) {
    const j = rule(original, i);
    const simple = j === i + 1 ? simpleUnit(original.charCodeAt(i)) : -1;
    if (simple >= 0) {
      if (k >= normal.length || normal.charCodeAt(k) !== simple) return false;
      from[k] = i;
      to[k++] = j;
    } else {
      const piece = normalise(original.slice(i, j));
      if (k + piece.length > normal.length) return false;
      for (let u = 0; u < piece.length; u++) {
        if (!sameUnit(normal.charCodeAt(k), piece.charCodeAt(u))) return false;
        from[k] = i;
        to[k++] = j;
      }
    }
    i = j;
  }
  return k === normal.length;
}

/** normalise(original), each of its units traced to the piece of `original` it came from. */
export function normaliseWithOffsets(original: string): NormalisedText {
  const text = normalise(original);
  const from = new Int32Array(text.length);
  const to = new Int32Array(text.length);
  for (const rule of [byCharacter, byWhiteSpace]) {
    if (trace(original, text, rule, from, to)) return { text, from, to };
  }
  trace(original, text, wholeText, from, to);
  return { text, from, to };
}
