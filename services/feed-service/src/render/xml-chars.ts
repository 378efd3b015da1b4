/* eslint-disable no-control-regex -- finding control characters is the point */
/**
 * Characters XML 1.0 cannot carry: C0 controls other than tab/LF/CR, U+FFFE/U+FFFF and
 * unpaired surrogates (Postgres text cannot store NUL or lone surrogates either).
 */
export const NOT_XML_CHAR =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const NOT_XML_CHARS =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** A cheap pre-check: any control character or any surrogate (emoji are surrogate pairs). */
const MAYBE_NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;
/* eslint-enable no-control-regex */

/**
 * Text XML can carry: anything it cannot becomes U+FFFD. Published items never hold such
 * characters (refused with 422); this guards rows written by other means. One regex test
 * per value, which is far cheaper than xmlbuilder2's invalidCharReplacement option.
 */
export function xmlSafe(text: string): string {
  if (!MAYBE_NOT_XML_CHAR.test(text) || !NOT_XML_CHAR.test(text)) return text;
  return text.replace(NOT_XML_CHARS, '\uFFFD');
}
