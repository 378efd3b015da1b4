import type { Queryable } from '@hub/service-kit';
import type { ThumbnailRow } from '../store/result-documents';

/** `{thumbnail_url}/cse_<collection_id>/<size>/<thumbnail_key>` */
export function thumbnailLocation(
  thumbnailUrl: string,
  collectionId: string,
  size: string,
  key: string,
): string {
  return `${thumbnailUrl.replace(/\/+$/, '')}/cse_${collectionId}/${size}/${key}`;
}

/** The archive_* fields of a search result with this stored thumbnail. */
export function archiveFields(
  thumbnailUrl: string,
  collectionId: string,
  row: ThumbnailRow,
): Record<string, string> {
  const url = thumbnailLocation(thumbnailUrl, collectionId, row.size, row.thumbnailKey);
  return {
    [`archive_thumbnail_${row.size}`]: url,
    archive_thumbnail: url,
    archive_image_size_list: `${row.sourceUrl} ${row.sourceWidth}X${row.sourceHeight}`,
  };
}

/** archive_* fields per documents.id, for the documents of one result page that have one. */
export async function resultFields(
  db: Queryable,
  thumbnailUrl: string,
  collectionId: string,
  docIds: string[],
): Promise<Map<string, Record<string, string>>> {
  const out = new Map<string, Record<string, string>>();
  if (docIds.length === 0) return out;
  const r = await db.query<{
    doc_id: string;
    size: string;
    thumbnail_key: string;
    source_url: string;
    source_width: number;
    source_height: number;
  }>(
    `SELECT doc_id::text, size, thumbnail_key, source_url, source_width, source_height
       FROM thumbnails WHERE collection_id = $1 AND doc_id = ANY($2::bigint[])`,
    [collectionId, docIds],
  );
  for (const row of r.rows) {
    out.set(
      row.doc_id,
      archiveFields(thumbnailUrl, collectionId, {
        size: row.size,
        thumbnailKey: row.thumbnail_key,
        sourceUrl: row.source_url,
        sourceWidth: row.source_width,
        sourceHeight: row.source_height,
      }),
    );
  }
  return out;
}
