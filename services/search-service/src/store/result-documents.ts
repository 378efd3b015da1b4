import type { Queryable } from '@hub/service-kit';
import type { StoredDocument } from './documents';

/**
 * Reads the documents of a result page by documents.id, after the engine found them: by id, in
 * any order; ids that no longer exist are absent.
 *
 * A page's doc JSON comes as its UTF-8 bytes, never as a JavaScript string: the page is spliced
 * into the JSON answer as bytes (http/render.ts), and only XML and highlights parse it. The
 * driver makes a string of every text value it reads, so the bytes are read as base64 (ASCII,
 * which costs little to read) and decoded by Buffer. Measured on the bench's 1.7 KB documents of
 * 70 % Korean text (2026-11-26): decoding one to a string cost 9–12 µs and encoding the answer
 * back to bytes ~5 µs, against 2.4 µs for the base64 text and its decoding. In the bench's query
 * kinds (20,000 documents, main and this back to back) the service thread's time per search went
 * from 1.42 to 1.30 ms and from 1.50 to 1.33 ms.
 */
type PageLoader<T> = (
  db: Queryable,
  collectionId: string,
  ids: readonly string[],
) => Promise<Map<string, T>>;

/** A stored document of a result page: its doc as the UTF-8 bytes of the stored JSON. */
export interface PageDocumentRow extends Omit<StoredDocument, 'doc'> {
  doc: Buffer;
}

/** A page row as the driver reads it: the doc as base64 (DOC_BYTES). */
type EncodedRow = Omit<PageDocumentRow, 'doc'> & { doc: string };

/** the doc column as base64 of its UTF-8 bytes (PostgreSQL breaks the text into lines) */
const DOC_BYTES = `encode(convert_to(d.doc, 'UTF8'), 'base64')`;

const docBytes = (base64: string): Buffer => Buffer.from(base64, 'base64');

/** The stored documents of the page. */
export const loadDocuments: PageLoader<PageDocumentRow> = async (db, collectionId, ids) => {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<EncodedRow>({
    name: 'document-load-bytes',
    text: `SELECT d.id, d.dockey, d.version, ${DOC_BYTES} AS doc FROM documents d
           WHERE d.id = ANY($1::bigint[]) AND d.collection_id = $2`,
    values: [ids, collectionId],
  });
  return new Map(rows.map((r) => [r.id, { ...r, doc: docBytes(r.doc) }]));
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
export interface StoredDocumentWithThumbnail extends PageDocumentRow {
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
    EncodedRow & {
      size: string | null;
      thumbnail_key: string;
      source_url: string;
      source_width: number;
      source_height: number;
    }
  >({
    name: 'document-load-bytes-with-thumbnails',
    text: `SELECT d.id, d.dockey, d.version, ${DOC_BYTES} AS doc,
                  t.size, t.thumbnail_key, t.source_url, t.source_width, t.source_height
           FROM documents d
           LEFT JOIN thumbnails t ON t.collection_id = d.collection_id AND t.doc_id = d.id
           WHERE d.id = ANY($1::bigint[]) AND d.collection_id = $2`,
    values: [ids, collectionId],
  });
  return new Map(
    rows.map((r) => [
      r.id,
      pageDocument(
        [
          r.id,
          r.dockey,
          r.version,
          r.size,
          r.thumbnail_key,
          r.source_url,
          r.source_width,
          r.source_height,
        ],
        r.doc,
      ),
    ]),
  );
};

/**
 * A page's document as the snapshot statement reads it with the snapshot (JSON, the columns of
 * loadDocumentsWithThumbnails in their order but the doc, whose base64 comes apart:
 * migrations/1733500000000_search-snapshot-base64-apart.sql).
 */
export type PageDocumentJson = [
  id: string,
  dockey: string,
  version: string,
  size: string | null,
  thumbnailKey: string,
  sourceUrl: string,
  sourceWidth: number,
  sourceHeight: number,
];

/**
 * A page's document from its columns and its doc's base64 (DOC_BYTES) read apart from them (by
 * the snapshot statement, or loadDocumentsWithThumbnails); a thumbnail if `size`.
 */
export function pageDocument(
  [id, dockey, version, size, thumbnailKey, sourceUrl, sourceWidth, sourceHeight]: PageDocumentJson,
  doc: string,
): StoredDocumentWithThumbnail {
  return {
    id,
    dockey,
    version: String(version),
    doc: docBytes(doc),
    thumbnail: size ? { size, thumbnailKey, sourceUrl, sourceWidth, sourceHeight } : null,
  };
}
