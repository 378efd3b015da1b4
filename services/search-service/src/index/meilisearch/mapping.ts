/**
 * Pure mapping between the service's documents/queries and Meilisearch's documents, settings
 * and search requests, by concern. No I/O here: everything is unit-tested in
 * test/meili-mapping.test.ts and test/meili-requests.test.ts.
 */
export * from './document-mapping';
export * from './index-settings';
export * from './query-mapping';
