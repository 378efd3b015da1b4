/**
 * Versioning through the Accept media type: application/vnd.<vendor>.resource-<version>+<xml|json>.
 * The vendor token is configurable ("vendor" in the spec).
 */
export type FeedFormat = 'xml' | 'json';
export const FEED_SUPPORTED_VERSIONS = ['1.0'] as const;
export const FEED_DEFAULT_VENDOR = 'vendor';

export function feedMediaType(vendor: string, format: FeedFormat, version = '1.0'): string {
  return `application/vnd.${vendor}.resource-${version}+${format};charset=utf-8`;
}

export type AcceptResult =
  /** a usable media range: the format and version to answer with */
  | { kind: 'ok'; format: FeedFormat; version: string }
  /** no Accept header at all (the header is required) → 422 */
  | { kind: 'missing' }
  /** only our vendor type, but for versions we do not serve → 404 */
  | { kind: 'unsupported-version'; version: string }
  /** nothing we can produce (text/html, a malformed value, another vendor) → 422 */
  | { kind: 'unusable' };

interface Range {
  type: string;
  params: Record<string, string>;
  q: number;
  order: number;
}

function parseRanges(header: string): Range[] {
  const out: Range[] = [];
  header.split(',').forEach((part, order) => {
    const [rawType, ...rawParams] = part.split(';');
    const type = (rawType ?? '').trim().toLowerCase();
    if (!type) return;
    const params: Record<string, string> = {};
    for (const p of rawParams) {
      const i = p.indexOf('=');
      if (i < 0) continue;
      params[p.slice(0, i).trim().toLowerCase()] = p
        .slice(i + 1)
        .trim()
        .replace(/^"|"$/g, '');
    }
    const q = params.q === undefined ? 1 : Number(params.q);
    out.push({ type, params, q: Number.isFinite(q) ? q : 0, order });
  });
  return out;
}

/** Generic types a feed reader or HTTP client sends; answered with version 1.0. */
const GENERIC: Record<string, FeedFormat> = {
  'application/rss+xml': 'xml',
  'application/xml': 'xml',
  'text/xml': 'xml',
  'application/json': 'json',
  '*/*': 'xml',
  'application/*': 'xml',
};

/**
 * Picks the answer for an Accept header. The vendor type decides when present: a vendor
 * range of a supported version wins, one of only unsupported versions gives 404. Clients
 * that do not know the vendor type (feed readers, curl) get version 1.0 through the
 * generic types above. `charset`, when given, must be utf-8.
 */
export function parseFeedAccept(header: string | undefined, vendor: string): AcceptResult {
  if (header === undefined || header.trim() === '') return { kind: 'missing' };
  const ranges = parseRanges(header).filter((r) => r.q > 0);
  const vendorRe = new RegExp(
    `^application/vnd\\.${escapeRe(vendor.toLowerCase())}\\.resource-([^+]+)\\+(xml|json)$`,
  );
  const charsetOk = (r: Range) =>
    r.params.charset === undefined || /^utf-?8$/i.test(r.params.charset);
  let unsupported: string | undefined;
  const candidates: {
    format: FeedFormat;
    version: string;
    q: number;
    order: number;
    specific: number;
  }[] = [];
  for (const r of ranges) {
    const m = vendorRe.exec(r.type);
    if (m) {
      const version = m[1]!;
      if (!(FEED_SUPPORTED_VERSIONS as readonly string[]).includes(version)) {
        unsupported ??= version;
        continue;
      }
      if (charsetOk(r))
        candidates.push({
          format: m[2] as FeedFormat,
          version,
          q: r.q,
          order: r.order,
          specific: 2,
        });
      continue;
    }
    const generic = GENERIC[r.type];
    if (generic && charsetOk(r))
      candidates.push({
        format: generic,
        version: '1.0',
        q: r.q,
        order: r.order,
        specific: r.type.includes('*') ? 0 : 1,
      });
  }
  if (candidates.length === 0) {
    return unsupported !== undefined
      ? { kind: 'unsupported-version', version: unsupported }
      : { kind: 'unusable' };
  }
  candidates.sort((a, b) => b.specific - a.specific || b.q - a.q || a.order - b.order);
  if (unsupported !== undefined && candidates[0]!.specific < 2) {
    // the client named our vendor type only with versions we do not serve
    return { kind: 'unsupported-version', version: unsupported };
  }
  const best = candidates[0]!;
  return { kind: 'ok', format: best.format, version: best.version };
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
