/**
 * RFC 9110 §13.1.2: whether an If-None-Match header lists this ETag (or is `*`), with the weak
 * comparison GET and HEAD use (`W/"x"` matches `"x"`). A missing header matches nothing.
 */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header === etag) return true; // the usual case: the client sends back what it was given
  if (header.trim() === '*') return true;
  const mine = opaque(etag);
  return header.split(',').some((tag) => opaque(tag) === mine);
}

/** The tag without its weakness marker. */
function opaque(tag: string): string {
  const t = tag.trim();
  return t.startsWith('W/') ? t.slice(2) : t;
}
