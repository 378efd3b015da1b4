import { replaceNonXmlChars } from '@hub/service-kit';

/**
 * The one place where text becomes XML (RSS and the XML error body are written only
 * through these functions). Every character that markup or a parser would change is
 * written as a reference, so any XML parser gives the text back byte for byte:
 *
 * - `&` always becomes `&amp;`, even when it already looks like a reference (`&amp;`,
 *   `&#38;`, `&lt;` in a post about HTML are text, not markup);
 * - `<` and `>` become `&lt;`/`&gt;` (so `]]>` never appears as is);
 * - CR becomes `&#13;`: parsers turn a literal CR and CRLF into LF (XML 1.0 §2.11); NEL
 *   (U+0085), LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029) become `&#133;`,
 *   `&#8232;`, `&#8233;`, because XML 1.1 parsers and some 1.0 ones (xmldom turns all
 *   three into LF) change them too;
 * - in attribute values also `"` (`&quot;`), and tab, LF as `&#9;`/`&#10;`: parsers turn
 *   literal whitespace in attributes into spaces (§3.3.3).
 *
 * Characters XML 1.0 cannot carry never reach here from a published item (refused with 422,
 * see item-input.ts); anything else that does (rows written by other means, settings, error
 * messages) gets U+FFFD in their place, so the document stays well-formed. JSON carries them
 * as they are. Never CDATA: a CDATA section cannot hold `]]>` nor a CR that survives parsing.
 */
const TEXT_SPECIAL = /[&<>\r\u0085\u2028\u2029]/;
const TEXT_SPECIALS = /[&<>\r\u0085\u2028\u2029]/g;
const ATTRIBUTE_SPECIAL = /[&<>"\t\n\r\u0085\u2028\u2029]/;
const ATTRIBUTE_SPECIALS = /[&<>"\t\n\r\u0085\u2028\u2029]/g;
const REFERENCES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
  '\u0085': '&#133;',
  '\u2028': '&#8232;',
  '\u2029': '&#8233;',
};
const reference = (ch: string) => REFERENCES[ch]!;

/** Character data: the content of an element. */
export function escapeText(value: string): string {
  const safe = replaceNonXmlChars(value);
  return TEXT_SPECIAL.test(safe) ? safe.replace(TEXT_SPECIALS, reference) : safe;
}

/** An attribute value, to be written between double quotes. */
export function escapeAttribute(value: string): string {
  const safe = replaceNonXmlChars(value);
  return ATTRIBUTE_SPECIAL.test(safe) ? safe.replace(ATTRIBUTE_SPECIALS, reference) : safe;
}

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/** `<name>text</name>`; `name` is one of our own element names, never input. */
export function textElement(name: string, value: string): string {
  return `<${name}>${escapeText(value)}</${name}>`;
}

/** `<name a="v" …/>` or, with content (already markup), `<name a="v" …>content</name>`. */
export function element(
  name: string,
  attributes: Readonly<Record<string, string>>,
  content?: string,
): string {
  let out = `<${name}`;
  for (const [key, value] of Object.entries(attributes))
    out += ` ${key}="${escapeAttribute(value)}"`;
  return content === undefined ? `${out}/>` : `${out}>${content}</${name}>`;
}
