/**
 * The form the analyser compares text in: NFKC, then lower case (locale-independent). And the
 * same form traced back to the text it came from, so that a term found in the normal form can
 * be shown where a reader sees it (highlights).
 *
 * The trace walks the text piece by piece, only as far as it is asked to, and checks every
 * unit a piece gives against the whole text's normal form; the terms are always made from the
 * whole text's normal form, so tracing never changes a term. A piece is a character with every
 * following character NFKC may combine with it (combining marks, vowel and final jamo,
 * compatibility jamo, kana voicing marks), so a span never splits a character from its marks
 * or a syllable from its jamo. Lower case differs only at a final sigma (σ or ς by its
 * neighbours: same length), which the check allows. A piece whose units do not match is
 * taken again as its whole run of white space or non-space, and should that not match either,
 * the rest of the text is one piece: the trace is then coarse there, never wrong.
 */

/** NFKC + lower case: the form both documents and queries are compared in. */
export function normalise(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/** The normal form of a text, and where each part of it came from in the text. */
export interface NormalTrace {
  /** normalise(original) */
  readonly text: string;
  /**
   * The part of the original that units [start, end) of `text` came from: [from, to) in
   * UTF-16 units of the original, on character boundaries.
   */
  span(start: number, end: number): [number, number];
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

const restOfText: PieceRule = (text) => text.length;

/** The rules a piece is tried with, finest first; the last always fits. */
const RULES = [byCharacter, byWhiteSpace, restOfText];

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

/**
 * The normal form of `original`, traced lazily: span() walks only as far as it is asked to
 * (highlighting looks at the words it needs, not at every word of a long field).
 */
export function traceNormalForm(original: string): NormalTrace {
  const normal = normalise(original);
  const from = new Int32Array(normal.length);
  const to = new Int32Array(normal.length);
  let i = 0; // the original is traced up to here …
  let k = 0; // … and the normal form up to here

  /** Records the piece [i, j) when its units are the next ones of the normal form. */
  function take(j: number): boolean {
    const simple = j === i + 1 ? simpleUnit(original.charCodeAt(i)) : -1;
    if (simple >= 0) {
      if (k >= normal.length || normal.charCodeAt(k) !== simple) return false;
      from[k] = i;
      to[k++] = j;
      return true;
    }
    const piece = normalise(original.slice(i, j));
    if (k + piece.length > normal.length) return false;
    for (let u = 0; u < piece.length; u++) {
      if (!sameUnit(normal.charCodeAt(k + u), piece.charCodeAt(u))) return false;
    }
    from.fill(i, k, k + piece.length);
    to.fill(j, k, k + piece.length);
    k += piece.length;
    return true;
  }

  /** Traces pieces until unit `unit` of the normal form has its span. */
  function traceTo(unit: number): void {
    while (k <= unit && i < original.length) {
      let j = original.length;
      for (const rule of RULES) {
        const end = rule(original, i);
        if (end === original.length || take(end)) {
          j = end;
          break;
        }
      }
      if (j === original.length) {
        // the rest of the text, as one piece, gave whatever of the normal form is left
        from.fill(i, k);
        to.fill(j, k);
        k = normal.length;
      }
      i = j;
    }
  }

  return {
    text: normal,
    span(start, end) {
      traceTo(end - 1);
      return [from[start]!, to[end - 1]!];
    },
  };
}
