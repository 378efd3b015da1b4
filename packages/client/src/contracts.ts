/**
 * The contract data the client needs, taken from `@hub/contracts`' own source modules (never
 * retyped). Only these data modules are imported, not the package index: the index also loads
 * the doc parsers and with them lossless-json, and this client has no runtime dependencies.
 * The build compiles these modules into the client's own `dist` (see README, "Contracts").
 */
export {
  FEED_CATEGORIES,
  FEED_CATEGORY_CODES,
  isFeedCategory,
  type FeedCategoryCode,
} from '../../contracts/src/feed/categories.js';
export { FEED_ERRORS, type FeedErrorRow } from '../../contracts/src/feed/errors.js';
export {
  FEED_DEFAULT_VENDOR,
  feedMediaType,
  type FeedFormat,
} from '../../contracts/src/feed/media-types.js';
export {
  SEARCH_ERRORS,
  SEARCH_ERROR_ROWS,
  type ContractError,
  type SearchOperation,
} from '../../contracts/src/search/errors.js';
export {
  SEARCH_HTTP_ERRORS,
  SEARCH_RETRY_AFTER_SECONDS,
  type HttpAnswer,
} from '../../contracts/src/search/http-errors.js';
