import type { ChangeListener } from '../index/search-index';
import type { ThumbnailRow } from '../store/result-documents';

/**
 * Thumbnails of `contents_image`: a ChangeListener that queues work in the write
 * transaction, and the archive_* fields of search results.
 */
export interface ThumbnailService extends ChangeListener {
  /** archive_* result fields per documents.id, for the documents of one result page */
  resultFields(
    collectionId: string,
    docIds: string[],
  ): Promise<Map<string, Record<string, string>>>;
  /**
   * Optional: the archive fields of a thumbnails row read together with the page's documents
   * (one query instead of two; see loadDocumentsWithThumbnails).
   */
  archiveFields?(collectionId: string, row: ThumbnailRow): Record<string, string>;
  start?(): void;
  stop?(): Promise<void>;
}

/** Used until thumbnails are produced: no archive fields, nothing queued. */
export const noThumbnails: ThumbnailService = {
  async recordChange() {},
  addedDocumentSql: () => [],
  async resultFields() {
    return new Map();
  },
};
