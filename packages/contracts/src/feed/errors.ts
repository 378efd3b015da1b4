/**
 * The feed spec's error table. Bodies are "not shown" in the spec; the service renders
 * every error as one body in the negotiated format: JSON {"error": {"status", "message"}}
 * or XML <error><status/><message/></error>. `text` is the default message.
 */
export interface FeedErrorRow {
  readonly status: number;
  readonly text: string;
  readonly meaning: string;
}

export const FEED_ERRORS = {
  authenticationFailed: {
    status: 401,
    text: 'authentication failed',
    meaning: 'authentication failed',
  },
  notFound: {
    status: 404,
    text: 'the API does not exist, or the requested version is not supported',
    meaning: 'the API does not exist, or the requested version is not supported',
  },
  invalidParameter: {
    status: 422,
    text: 'invalid parameter or missing required value',
    meaning: 'invalid parameter or missing required value',
  },
  serverError: { status: 500, text: 'server error', meaning: 'server error' },
  unavailable: { status: 503, text: 'service unavailable', meaning: 'server error' },
  /** Beyond the read spec: the publishing side (POST/PUT/DELETE) needs these. */
  forbidden: {
    status: 403,
    text: 'the token lacks the hub:write scope',
    meaning: 'token valid but not allowed to publish',
  },
  methodNotAllowed: {
    status: 405,
    text: 'method not allowed',
    meaning: 'the path exists but not for this method',
  },
  payloadTooLarge: {
    status: 413,
    text: 'request body too large',
    meaning: 'the publishing body exceeds the size limit',
  },
  unsupportedMediaType: {
    status: 415,
    text: 'request body must be application/json',
    meaning: 'the publishing body is not JSON',
  },
  /**
   * The link identifies an item (guid = link): a POST of a link that exists with other
   * content, or a PUT moving an item to another item's link. `Location` names the item
   * that has the link. (A POST repeating the existing item exactly is a safe retry: 200.)
   */
  linkConflict: {
    status: 409,
    text: 'an item with this link already exists',
    meaning: 'the link identifies an item; the Location header names the item that has it',
  },
} as const satisfies Record<string, FeedErrorRow>;

/** The spec's own rows (403, 405, 409, 413 and 415 are ours, for the write side). */
export const FEED_SPEC_ERROR_STATUSES = [401, 404, 422, 500, 503] as const;
