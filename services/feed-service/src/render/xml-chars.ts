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
 * The one policy for characters XML 1.0 cannot carry: published items never hold them
 * (refused with 422, see item-input.ts); anything else that reaches a document (rows
 * written by other means, settings, error messages) gets U+FFFD in their place, so the
 * document stays well-formed. JSON carries them as they are.
 */
export function xmlSafe(text: string): string {
  if (!MAYBE_NOT_XML_CHAR.test(text) || !NOT_XML_CHAR.test(text)) return text;
  return text.replace(NOT_XML_CHARS, '\uFFFD');
}
