import { parseDoc, parseDockey, SEARCH_ERRORS } from '@hub/contracts';
import { inTransaction } from '@hub/service-kit';
import { replaceDocument } from '../store/documents';
import { upsertChange } from './changes';
import { recordChange, type DomainDeps } from './deps';
import { as, check, fail, step } from './steps';

const E = SEARCH_ERRORS.update;

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

  await inTransaction(deps.pool, as(E.databaseException), async (tx) => {
    const updated = await step(E.databaseException, () =>
      replaceDocument(tx, collectionId, dockey, doc.json),
    );
    if (!updated) fail(E.dockeyInvalid);
    await step(E.updateProcessFail, () =>
      recordChange(deps, tx, upsertChange(collectionId, updated, doc)),
    );
  });
}
