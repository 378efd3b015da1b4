import { parseDoc, parseDockey, SEARCH_ERRORS } from '@hub/contracts';
import { inTransaction } from '@hub/service-kit';
import { replaceDocument } from '../store/documents';
import { upsertChange } from './changes';
import { recordChange, type DomainDeps } from './deps';
import { check, fail, failsWith, step } from './steps';

const ERRORS = SEARCH_ERRORS.update;

export interface UpdateInput {
  dockey: string | undefined;
  doc: string | undefined;
}

/**
 * PUT {base}/v2/{cid}/docs: full replacement. dockey → doc are checked like add; the stored
 * doc is replaced as a whole (fields left out disappear); a dockey not in the collection
 * answers 404 dockey is invalid.
 */
export async function updateDocument(
  deps: DomainDeps,
  collectionId: string,
  input: UpdateInput,
): Promise<void> {
  const dockey = check(parseDockey(input.dockey, 'update'));
  const doc = check(parseDoc(input.doc, 'update'));

  await inTransaction(deps.pool, failsWith(ERRORS.databaseException), async (tx) => {
    const updated = await step(ERRORS.databaseException, () =>
      replaceDocument(tx, collectionId, dockey, doc.json),
    );
    if (!updated) fail(ERRORS.dockeyInvalid);
    await step(ERRORS.updateProcessFail, () =>
      recordChange(deps, tx, upsertChange(collectionId, updated, doc)),
    );
  });
}
