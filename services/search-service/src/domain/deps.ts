import type pg from 'pg';
import type { Logger } from '@hub/service-kit';
import type {
  AddedDocument,
  AddedDocumentRows,
  DocumentChange,
  SearchIndex,
} from '../index/search-index';
import type { GroupedAdds } from '../store/grouped-adds';
import type { ThumbnailService } from '../thumbnails/thumbnail-service';

/**
 * What the use cases need: the database (and its adds, grouped per collection), the search
 * engine and the thumbnail service.
 */
export interface DomainDeps {
  pool: pg.Pool;
  adds: GroupedAdds;
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
 * Every listener's rows of a new document for the add's one statement (see
 * ChangeListener.addedDocumentSql); null when one of them cannot write them there.
 */
export function addedDocumentRows(
  deps: DomainDeps,
  added: AddedDocument,
): AddedDocumentRows[] | null {
  const out: AddedDocumentRows[] = [];
  for (const listener of [deps.index, deps.thumbnails]) {
    const rows = listener.addedDocumentSql?.(added) ?? null;
    if (rows === null) return null;
    out.push(...rows);
  }
  return out;
}
