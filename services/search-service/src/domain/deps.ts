import type pg from 'pg';
import type { Logger } from '@hub/service-kit';
import type { AddedDocument, DocumentChange, SearchIndex } from '../index/search-index';
import type { AddStatementParams } from '../store/documents';
import type { ThumbnailService } from '../thumbnails/thumbnail-service';

/** What the use cases need: the database, the search engine and the thumbnail service. */
export interface DomainDeps {
  pool: pg.Pool;
  index: SearchIndex;
  thumbnails: ThumbnailService;
  logger: Logger;
}

/** Hands a change to every listener inside the writing transaction (engine, thumbnails). */
export async function recordChange(
  deps: DomainDeps,
  tx: pg.PoolClient,
  change: DocumentChange,
): Promise<void> {
  await deps.index.recordChange(tx, change);
  await deps.thumbnails.recordChange(tx, change);
}

/**
 * Every listener's statement for adding `added` in one statement (see
 * ChangeListener.addedDocumentSql), values in `params`; null when one of them cannot.
 */
export function addedDocumentSql(
  deps: DomainDeps,
  added: AddedDocument,
  params: AddStatementParams,
): string[] | null {
  const out: string[] = [];
  for (const listener of [deps.index, deps.thumbnails]) {
    const sql = listener.addedDocumentSql?.(added, params.param) ?? null;
    if (sql === null) return null;
    out.push(sql);
  }
  return out;
}
