/** The spec's "Limits" table plus the bounds this package adds where the spec is silent. */
export const SEARCH_LIMITS = {
  /** fields per document, reserved fields included */
  maxFields: 35,
  /** dockey length in UTF-8 bytes */
  dockeyMaxBytes: 1024,
  /** q length in UTF-8 bytes (after trimming) */
  qMaxBytes: 1024,
  startMin: 0,
  startMax: 990,
  /** len is fixed at this value when start is startMax */
  fixedLenAtStartMax: 10,
  lenMin: 10,
  lenMax: 100,
  lenDefault: 10,
  exCaMaxEntries: 10,
  collectionIdLength: 8,
  apiKeyLength: 32,
  defaultThumbnailSize: '130X130',
  /**
   * Largest score_regdate / startdate / enddate: 9999-12-31T23:59:59Z in seconds. A larger
   * integer (e.g. a timestamp in milliseconds) gives "document date values is too big".
   */
  regdateMax: 253402300799,
  /** Largest category number (int32 max); categories are 0..categoryMax. */
  categoryMax: 2147483647,
  /** Longest field_name part of a field name ({type}_{name}). */
  fieldNameMaxLength: 64,
  /** Smallest and largest thumbnail width/height accepted by parseThumbnailSize. */
  thumbnailMinSide: 16,
  thumbnailMaxSide: 1024,
} as const;

/** COLLECTION_ID: 8 ASCII letters or digits. */
export function isCollectionId(s: unknown): s is string {
  return typeof s === 'string' && /^[A-Za-z0-9]{8}$/.test(s);
}

/** API_KEY: 32 hexadecimal characters (MD5-hash form). */
export function isApiKeyFormat(s: unknown): s is string {
  return typeof s === 'string' && /^[0-9a-fA-F]{32}$/.test(s);
}

export interface ThumbnailSize {
  readonly width: number;
  readonly height: number;
}

/** '130X130' (or '130x130') → { width: 130, height: 130 }; each side 16..1024, else null. */
export function parseThumbnailSize(s: string): ThumbnailSize | null {
  const m = /^([0-9]{1,4})[Xx]([0-9]{1,4})$/.exec(s);
  if (!m) return null;
  const width = Number(m[1]);
  const height = Number(m[2]);
  const ok = (n: number) =>
    n >= SEARCH_LIMITS.thumbnailMinSide && n <= SEARCH_LIMITS.thumbnailMaxSide;
  return ok(width) && ok(height) ? { width, height } : null;
}
