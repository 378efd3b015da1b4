import { SEARCH_ERRORS, type ContractError, type SearchOperation } from '../contracts.js';
import {
  SearchError,
  UnexpectedResponseError,
  type SearchErrorCode,
  type HubClientError,
} from '../errors.js';

/**
 * The error of a search-service answer: the body is exactly the text of a row of the common
 * table or of the operation's own table, with that row's status.
 */
export function searchErrorOf(
  operation: Exclude<SearchOperation, 'common'>,
  status: number,
  body: string,
): HubClientError {
  for (const table of [SEARCH_ERRORS.common, SEARCH_ERRORS[operation]]) {
    for (const [code, row] of Object.entries(table) as [SearchErrorCode, ContractError][]) {
      if (row.status === status && row.text === body) return new SearchError(code, row, body);
    }
  }
  return new UnexpectedResponseError(`search-service answered ${status}`, status, body);
}
