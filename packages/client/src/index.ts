export { FeedClient, type FeedClientOptions } from './feed/feed-client.js';
// the types of the clients' options, inputs and answers: all that feed-types.ts and
// search-types.ts export
export type * from './feed/feed-types.js';
export { SearchClient, type SearchClientOptions } from './search/search-client.js';
export type * from './search/search-types.js';
export {
  FeedError,
  FeedLinkConflictError,
  HubClientError,
  SearchError,
  SearchHttpError,
  TooManyRequestsError,
  UnexpectedResponseError,
  type FeedErrorCode,
  type SearchErrorCode,
  type SearchHttpErrorCode,
} from './errors.js';
export { parseRetryAfter } from './retry-after.js';
export {
  parseJsonExact,
  isIntegerText,
  exactNumber,
  type JsonPath,
  type NumberReviver,
} from './json/exact-json.js';
export { stringifyJson } from './json/stringify-json.js';
export type { FetchLike, FetchInit, FetchResponse, TokenSource } from './http.js';
export {
  FEED_CATEGORIES,
  FEED_CATEGORY_CODES,
  FEED_ERRORS,
  SEARCH_ERRORS,
  SEARCH_HTTP_ERRORS,
  SEARCH_RETRY_AFTER_SECONDS,
  feedMediaType,
  type ContractError,
  type HttpAnswer,
  type FeedCategoryCode,
  type FeedErrorRow,
  type FeedFormat,
  type SearchOperation,
} from './contracts.js';
export { createHubClient, type HubClient, type HubClientOptions } from './hub-client.js';
