import { parseDockey, SEARCH_ERRORS } from '@hub/contracts';
import { releaseDocumentSlots } from '../store/collections';
import { inTransaction } from '@hub/service-kit';
import { deleteDocument as deleteStored } from '../store/documents';
import { deleteChange } from './changes';
import { recordChange, type DomainDeps } from './deps';
import { check, fail, failsWith, step } from './steps';

const ERRORS = SEARCH_ERRORS.delete;

export interface DeleteInput {
  dockey: string | undefined;
}

/**
 * DELETE {base}/v2/{cid}/docs. The dockey is checked; in one transaction the document's slot is
 * given back (first: the lock order of a forced add, which deletes the oldest documents), the
 * document deleted (none: 404 dockey is invalid, and the slot stays taken), and the change
 * handed on.
 */
export async function deleteDocument(
  deps: DomainDeps,
  collectionId: string,
  input: DeleteInput,
): Promise<void> {
  const dockey = check(parseDockey(input.dockey, 'delete'));

  await inTransaction(deps.pool, failsWith(ERRORS.deleteProcessFail), async (tx) => {
    const released = await step(ERRORS.userInfoFail, () =>
      releaseDocumentSlots(tx, collectionId, 1),
    );
    if (!released) fail(SEARCH_ERRORS.common.cidInvalid);
    const deleted = await step(ERRORS.deleteProcessFail, () =>
      deleteStored(tx, collectionId, dockey),
    );
    if (!deleted) fail(ERRORS.dockeyInvalid);
    await step(ERRORS.deleteProcessFail, () =>
      recordChange(deps, tx, deleteChange(collectionId, deleted)),
    );
  });
}
