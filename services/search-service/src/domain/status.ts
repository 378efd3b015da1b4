import { SEARCH_ERRORS } from '@hub/contracts';
import { readDocumentCount } from '../store/collections';
import type { DomainDeps } from './deps';
import { fail, step } from './steps';

export interface CollectionStatus {
  /** whether the engine can search this collection now (index.status) */
  searchable: boolean;
  documentCount: number;
}

/**
 * GET {base}/v2/{cid}/status/{format}: the number of stored documents (read fresh) and whether
 * the engine can search the collection. Not counted against the API call limit.
 */
export async function collectionStatus(
  deps: DomainDeps,
  collectionId: string,
): Promise<CollectionStatus> {
  const [count, engine] = await step(SEARCH_ERRORS.status.makeStatusResultFail, () =>
    Promise.all([readDocumentCount(deps.pool, collectionId), deps.index.status(collectionId)]),
  );
  if (count === null) fail(SEARCH_ERRORS.common.cidInvalid);
  if (!engine.searchable) {
    deps.logger.warn({ collectionId, reason: engine.reason }, 'collection not searchable');
  }
  return { searchable: engine.searchable, documentCount: count };
}
