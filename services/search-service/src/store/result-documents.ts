import type { Queryable } from '@hub/service-kit';
import type { StoredDocument } from './documents';

/**
 * Reads the documents of a result page by documents.id, after the engine found them: by id, in
 * any order; ids that no longer exist are absent.
 */
type PageLoader<T> = (
  db: Queryable,
  collectionId: string,
  ids: readonly string[],
) => Promise<Map<string, T>>;

/** The stored documents of the page. */
export const loadDocuments: PageLoader<StoredDocument> = async (db, collectionId, ids) => {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<StoredDocument>({
    name: 'document-load',
    text: `SELECT id, dockey, version, doc FROM documents
           WHERE id = ANY($1::bigint[]) AND collection_id = $2`,
    values: [ids, collectionId],
  });
  return new Map(rows.map((r) => [r.id, r]));
};

/** What a search result needs of a stored thumbnail (a thumbnails row as the store loads it). */
export interface ThumbnailRow {
  size: string;
  thumbnailKey: string;
  sourceUrl: string;
  sourceWidth: number;
  sourceHeight: number;
}

/** A stored document with its thumbnail, if it has one (see loadDocumentsWithThumbnails). */
export interface StoredDocumentWithThumbnail extends StoredDocument {
  thumbnail: ThumbnailRow | null;
}

/** loadDocuments and the documents' thumbnails in one query. */
export const loadDocumentsWithThumbnails: PageLoader<StoredDocumentWithThumbnail> = async (
  db,
  collectionId,
  ids,
) => {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<
    StoredDocument & {
      size: string | null;
      thumbnail_key: string;
      source_url: string;
      source_width: number;
      source_height: number;
    }
  >({
    name: 'document-load-with-thumbnails',
    text: `SELECT d.id, d.dockey, d.version, d.doc,
                  t.size, t.thumbnail_key, t.source_url, t.source_width, t.source_height
           FROM documents d
           LEFT JOIN thumbnails t ON t.collection_id = d.collection_id AND t.doc_id = d.id
           WHERE d.id = ANY($1::bigint[]) AND d.collection_id = $2`,
    values: [ids, collectionId],
  });
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        dockey: r.dockey,
        version: r.version,
        doc: r.doc,
        thumbnail: r.size
          ? {
              size: r.size,
              thumbnailKey: r.thumbnail_key,
              sourceUrl: r.source_url,
              sourceWidth: r.source_width,
              sourceHeight: r.source_height,
            }
          : null,
      },
    ]),
  );
};
