/**
 * What every search request asks of Meilisearch besides the query, filter, sort and page: the
 * doc_id of each hit only, every word matched, Korean and English tokenizing.
 */
export const SEARCH_ASKS = {
  attributesToRetrieve: ['doc_id'],
  matchingStrategy: 'all',
  locales: ['kor', 'eng'],
};
