/**
 * The search service's answers that the spec has no row for: HTTP-level answers given before
 * any contract check (the request is not one of the operations, its body cannot be read) or
 * instead of running it (its collection already has too many searches waiting), and the
 * checks of the parameters the service adds beyond the spec (highlights: highlight.ts; facets:
 * facets.ts). Not spec rows, so not in SEARCH_ERRORS; the service's README lists each with when
 * it is given.
 */
export interface HttpAnswer {
  readonly status: number;
  readonly text: string;
}

export const SEARCH_HTTP_ERRORS = {
  notFound: { status: 404, text: 'not found' },
  methodNotAllowed: { status: 405, text: 'method not allowed' },
  badRequest: { status: 400, text: 'bad request' },
  /** hl other than 0 or 1 (highlight.ts) */
  hlInvalid: { status: 400, text: 'hl parameter is invalid' },
  /** with hl=1: hl_pre longer than HIGHLIGHT_TAG_MAX_BYTES UTF-8 bytes */
  hlPreTooLong: { status: 400, text: 'hl_pre is too long (at most 32 bytes)' },
  /** with hl=1: hl_pre not valid UTF-8 (invalid encoding, U+0000) */
  hlPreInvalid: { status: 400, text: 'hl_pre parameter is invalid' },
  hlPostTooLong: { status: 400, text: 'hl_post is too long (at most 32 bytes)' },
  hlPostInvalid: { status: 400, text: 'hl_post parameter is invalid' },
  payloadTooLarge: { status: 413, text: 'request body too large' },
  unsupportedMediaType: { status: 415, text: 'unsupported media type' },
  /**
   * A search of a collection that already has its most searches waiting for its share of the
   * cores, or one that waited its longest: sent with `Retry-After: SEARCH_RETRY_AFTER_SECONDS`.
   */
  tooManyRequests: { status: 429, text: 'too many requests' },
  /** A search's `facet` (beyond the spec) other than `categories`, after every spec check. */
  facetInvalid: { status: 400, text: 'facet parameter is invalid' },
  /** A search's `prefix` (beyond the spec) other than 0 or 1, after every spec check. */
  prefixInvalid: { status: 400, text: 'prefix parameter is invalid' },
} as const satisfies Record<string, HttpAnswer>;

/** The `Retry-After` (seconds) sent with `tooManyRequests`: the collection's queue drains in
 * well under a second at usual search times. */
export const SEARCH_RETRY_AFTER_SECONDS = 1;
