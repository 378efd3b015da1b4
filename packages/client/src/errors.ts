import {
  FEED_ERRORS,
  SEARCH_ERRORS,
  SEARCH_HTTP_ERRORS,
  type ContractError,
  type FeedErrorRow,
  type HttpAnswer,
  type SearchOperation,
} from './contracts.js';

/** Every error the client throws for an answer of a service. */
export class HubClientError extends Error {
  constructor(
    message: string,
    /** the HTTP status of the answer */
    readonly status: number,
    /** the answer's body as received */
    readonly body: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** An answer that matches no row of the contracts (a proxy's 502, an HTML error page, ...). */
export class UnexpectedResponseError extends HubClientError {}

export type FeedErrorCode = keyof typeof FEED_ERRORS;

/** A feed-service error: one row of `FEED_ERRORS` (`status`, `text`) plus the server's detail. */
export class FeedError extends HubClientError {
  /** the key of the row in FEED_ERRORS (`authenticationFailed`, `linkConflict`, ...) */
  readonly code: FeedErrorCode;
  /** the contract's text of that row */
  readonly text: string;
  /** what the server added after `text: ` (the reason of a 401, the field of a 422) */
  readonly detail: string | undefined;

  constructor(code: FeedErrorCode, message: string, body: string) {
    const row: FeedErrorRow = FEED_ERRORS[code];
    super(message, row.status, body);
    this.code = code;
    this.text = row.text;
    this.detail = message.startsWith(`${row.text}: `)
      ? message.slice(row.text.length + 2)
      : undefined;
  }

  /** True when this error is that row of the contracts (`e.is(FEED_ERRORS.forbidden)`). */
  is(row: Pick<FeedErrorRow, 'status' | 'text'>): boolean {
    return this.status === row.status && this.text === row.text;
  }
}

/** 409: the link is taken by another item; `location` is that item's URL. */
export class FeedLinkConflictError extends FeedError {
  constructor(
    message: string,
    body: string,
    readonly location: string | undefined,
  ) {
    super('linkConflict', message, body);
  }
}

export type SearchErrorCode = {
  [O in keyof typeof SEARCH_ERRORS]: keyof (typeof SEARCH_ERRORS)[O];
}[keyof typeof SEARCH_ERRORS];

/** A search-service error: one row of `SEARCH_ERRORS` (the body is exactly the row's text). */
export class SearchError extends HubClientError {
  /** the contract row itself: operation, status, text, condition */
  readonly contract: ContractError;
  /** the key of the row in its table (`apikeyInvalid`, `alreadyExists`, ...) */
  readonly code: SearchErrorCode;
  readonly text: string;
  /** the table the row is from: `common` or the operation's own */
  readonly operation: SearchOperation;

  constructor(code: SearchErrorCode, contract: ContractError, body: string) {
    super(contract.text, contract.status, body);
    this.contract = contract;
    this.code = code;
    this.text = contract.text;
    this.operation = contract.operation;
  }

  /** True when this error is that row (`e.is(SEARCH_ERRORS.add.alreadyExists)`); rows of
   * different tables with the same status and text (add and update repeat rows) are the same error. */
  is(row: Pick<ContractError, 'status' | 'text'>): boolean {
    return this.status === row.status && this.text === row.text;
  }
}

export type SearchHttpErrorCode = keyof typeof SEARCH_HTTP_ERRORS;

/**
 * A search-service answer the spec has no row for: one row of `SEARCH_HTTP_ERRORS` (the body is
 * exactly its text). The HTTP-level answers (404 not found of a path that is no operation, 405,
 * 400 bad request, 413, 415), the 400s of the search parameters beyond the spec (`hl`,
 * `hl_pre`, `hl_post`, `facet`, `prefix`), and the 429 (a `TooManyRequestsError`).
 */
export class SearchHttpError extends HubClientError {
  /** the key of the row in SEARCH_HTTP_ERRORS (`facetInvalid`, `tooManyRequests`, ...) */
  readonly code: SearchHttpErrorCode;
  readonly text: string;

  constructor(code: SearchHttpErrorCode, body: string) {
    const row: HttpAnswer = SEARCH_HTTP_ERRORS[code];
    super(row.text, row.status, body);
    this.code = code;
    this.text = row.text;
  }

  /** True when this error is that row (`e.is(SEARCH_HTTP_ERRORS.prefixInvalid)`). */
  is(row: HttpAnswer): boolean {
    return this.status === row.status && this.text === row.text;
  }
}

/**
 * 429 too many requests: the search's collection has too many searches waiting for its share
 * of the cores. Nothing was done; the same request may be sent again after `retryAfterSeconds`.
 */
export class TooManyRequestsError extends SearchHttpError {
  constructor(
    body: string,
    /** the answer's `Retry-After` in seconds (an HTTP-date counted from now); undefined when
     * absent or invalid */
    readonly retryAfterSeconds: number | undefined,
  ) {
    super('tooManyRequests', body);
  }
}
