import {
  SEARCH_ERRORS,
  SEARCH_HTTP_ERRORS,
  type ContractError,
  type SearchOperation,
} from '../contracts.js';
import {
  SearchError,
  SearchHttpError,
  TooManyRequestsError,
  UnexpectedResponseError,
  type HubClientError,
  type SearchErrorCode,
  type SearchHttpErrorCode,
} from '../errors.js';
import { parseRetryAfter } from '../retry-after.js';

/**
 * The error of a search-service answer: the body is exactly the text of a row, with that row's
 * status: of the common table or of the operation's own (a SearchError), else of the answers
 * the spec has no row for (a SearchHttpError; the 429 a TooManyRequestsError with its
 * `Retry-After`). Anything else is an UnexpectedResponseError.
 */
export function searchErrorOf(
  operation: Exclude<SearchOperation, 'common'>,
  status: number,
  body: string,
  retryAfter: string | null = null,
): HubClientError {
  for (const table of [SEARCH_ERRORS.common, SEARCH_ERRORS[operation]]) {
    for (const [code, row] of Object.entries(table) as [SearchErrorCode, ContractError][]) {
      if (row.status === status && row.text === body) return new SearchError(code, row, body);
    }
  }
  const code = (Object.keys(SEARCH_HTTP_ERRORS) as SearchHttpErrorCode[]).find(
    (key) => SEARCH_HTTP_ERRORS[key].status === status && SEARCH_HTTP_ERRORS[key].text === body,
  );
  if (code === 'tooManyRequests')
    return new TooManyRequestsError(body, parseRetryAfter(retryAfter));
  if (code !== undefined) return new SearchHttpError(code, body);
  return new UnexpectedResponseError(`search-service answered ${status}`, status, body);
}
