/* eslint-disable no-control-regex -- finding control characters is the point */
/**
 * Characters XML 1.0 cannot carry: C0 controls other than tab/LF/CR, U+FFFE/U+FFFF and
 * unpaired surrogates. A document holding one is not well-formed, so every XML writer passes
 * its text through one of the two policies below.
 */
const NOT_XML_CHAR =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const NOT_XML_CHARS = new RegExp(NOT_XML_CHAR.source, 'g');
/** A cheap pre-check: any control character or any surrogate (emoji are surrogate pairs). */
const MAYBE_NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;
/* eslint-enable no-control-regex */

/** True when the text holds a character XML 1.0 cannot carry. */
export function hasNonXmlChar(text: string): boolean {
  return MAYBE_NOT_XML_CHAR.test(text) && NOT_XML_CHAR.test(text);
}

/** Each character XML 1.0 cannot carry becomes U+FFFD (what was there stays visible). */
export function replaceNonXmlChars(text: string): string {
  return hasNonXmlChar(text) ? text.replace(NOT_XML_CHARS, '\uFFFD') : text;
}

/** Each character XML 1.0 cannot carry is dropped. */
export function deleteNonXmlChars(text: string): string {
  return hasNonXmlChar(text) ? text.replace(NOT_XML_CHARS, '') : text;
}
