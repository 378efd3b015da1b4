/**
 * The request headers a cached read depends on, read straight off `req.rawHeaders`. Node
 * builds `req.headers` lazily, on first access, as an object of lower-cased names; the bare
 * node:http server the fast path is measured against never pays for it, so neither does the
 * fast path.
 */
export interface ReadHeaders {
  authorization: string | undefined;
  /** the spec's prose spelling of Authorization is present (findToken judges it) */
  authentication: boolean;
  accept: string | undefined;
  requestId: string | undefined;
  ifNoneMatch: string | undefined;
  ifModifiedSince: string | undefined;
}

const NAMES = [
  'authorization',
  'authentication',
  'accept',
  'x-request-id',
  'if-none-match',
  'if-modified-since',
] as const;
type Name = (typeof NAMES)[number];

/** `name` (as the client spelled it) when it is one of NAMES, compared case-insensitively */
function known(name: string): Name | undefined {
  for (const n of NAMES) {
    if (name.length === n.length && (name === n || name.toLowerCase() === n)) return n;
  }
  return undefined;
}

/**
 * The read's headers, or null when one of them is sent more than once: Node joins or drops
 * repeated headers by rules of its own, so such a request goes to Express, which reads
 * `req.headers` (the two paths then agree by construction).
 */
export function readHeaders(raw: string[]): ReadHeaders | null {
  const h: ReadHeaders = {
    authorization: undefined,
    authentication: false,
    accept: undefined,
    requestId: undefined,
    ifNoneMatch: undefined,
    ifModifiedSince: undefined,
  };
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = known(raw[i]!);
    if (name === undefined) continue;
    const bit = 1 << NAMES.indexOf(name);
    if (seen & bit) return null;
    seen |= bit;
    const value = raw[i + 1]!;
    switch (name) {
      case 'authorization':
        h.authorization = value;
        break;
      case 'authentication':
        h.authentication = true;
        break;
      case 'accept':
        h.accept = value;
        break;
      case 'x-request-id':
        h.requestId = value;
        break;
      case 'if-none-match':
        h.ifNoneMatch = value;
        break;
      case 'if-modified-since':
        h.ifModifiedSince = value;
        break;
    }
  }
  return h;
}
