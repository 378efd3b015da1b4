import { parseDoc, parseDockey, parseForce, SEARCH_ERRORS } from '@hub/contracts';
import { inTransaction, ServiceError } from '@hub/service-kit';
import type pg from 'pg';
import type { AddedDocument, AddedDocumentRows } from '../index/search-index';
import {
  commitWithDocumentSlot,
  lockDocumentSlots,
  NoDocumentSlot,
  noDocumentSlot,
  releaseDocumentSlots,
} from '../store/collections';
import {
  AddStatementFailed,
  deleteOldestDocuments,
  insertDocument,
  insertDocumentSql,
  insertedDocument,
  type DocumentRef,
} from '../store/documents';
import { deleteChange, upsertChange } from './changes';
import { addedDocumentRows, recordChange, type DomainDeps } from './deps';
import { check, fail, failsWith, step } from './steps';

const ERRORS = SEARCH_ERRORS.add;

export interface AddInput {
  dockey: string | undefined;
  force: string | undefined;
  doc: string | undefined;
}

/**
 * POST {base}/v2/{cid}/docs. dockey → force → doc are checked; then one transaction inserts
 * the document (a dockey already there: 406 document is already exists), has the engine and
 * the thumbnails record it, and takes a document slot. When the collection is full: 406 index
 * max reached, or with force=1 the add is done again making room by deleting the oldest
 * documents under the collection's slot locks.
 */
export async function addDocument(
  deps: DomainDeps,
  collectionId: string,
  input: AddInput,
): Promise<void> {
  const dockey = check(parseDockey(input.dockey, 'add'));
  const force = parseForce(input.force);
  const doc = check(parseDoc(input.doc, 'add'));
  const added: AddedDocument = { collectionId, dockey, doc };

  try {
    await addWhileThereIsRoom(deps, added);
  } catch (e) {
    if (!(e instanceof NoDocumentSlot)) throw e;
    if (e.why === 'gone') fail(ERRORS.databaseException, e);
    if (!force) fail(ERRORS.indexMaxReached);
    await addReplacingTheOldest(deps, added);
  }
}

/**
 * The usual add: one statement (one round trip) when every listener can write its rows in it,
 * else step by step.
 */
async function addWhileThereIsRoom(deps: DomainDeps, added: AddedDocument): Promise<void> {
  const listenerRows = await step(ERRORS.addProcessFail, async () =>
    addedDocumentRows(deps, added),
  );
  if (listenerRows && (await addInOneRoundTrip(deps, added, listenerRows))) return;
  await addStepByStep(deps, added);
}

/**
 * The add as one statement, with the listeners' rows (grouped with the collection's other adds
 * under way: see GroupedAdds). False when it failed for another reason than a refused slot: it
 * is all or nothing, and Postgres does not say which of its parts failed, so the add is then
 * done step by step, whose failing step answers its own row.
 */
async function addInOneRoundTrip(
  deps: DomainDeps,
  added: AddedDocument,
  listenerRows: AddedDocumentRows[],
): Promise<boolean> {
  const { collectionId, dockey, doc } = added;
  let inserted: DocumentRef | null;
  try {
    inserted = await deps.adds.add(collectionId, { dockey, doc: doc.json, listenerRows });
  } catch (e) {
    if (!(e instanceof AddStatementFailed)) throw e;
    deps.logger.warn({ err: e.cause, collectionId }, 'add statement failed; adding step by step');
    return false;
  }
  if (!inserted) fail(ERRORS.alreadyExists);
  return true;
}

/**
 * The add in three round trips, each step failing with its own row: the transaction's start
 * with the insert (document duplication check fail), the change to the engine and thumbnails
 * (document add process fail), then the slot with the commit (database exception).
 */
async function addStepByStep(deps: DomainDeps, added: AddedDocument): Promise<void> {
  const { collectionId, dockey, doc } = added;
  let inserting = true;
  const onDatabaseError = (e: unknown): Error => {
    if (inserting) return new ServiceError(ERRORS.duplicationCheckFail, { cause: e });
    return noDocumentSlot(e) ?? new ServiceError(ERRORS.databaseException, { cause: e });
  };
  await inTransaction(
    deps.pool,
    onDatabaseError,
    async (tx, first) => {
      inserting = false;
      const ref = insertedDocument(first!, dockey);
      if (!ref) fail(ERRORS.alreadyExists);
      await step(ERRORS.addProcessFail, () =>
        recordChange(deps, tx, upsertChange(collectionId, ref, doc)),
      );
    },
    {
      first: insertDocumentSql(collectionId, dockey, doc.json),
      commit: commitWithDocumentSlot(collectionId),
    },
  );
}

/** force=1 on a full collection: the oldest documents make room, in the same transaction. */
async function addReplacingTheOldest(deps: DomainDeps, added: AddedDocument): Promise<void> {
  const { collectionId, doc } = added;
  await inTransaction(deps.pool, failsWith(ERRORS.databaseException), async (tx) => {
    const ref = await insertNew(tx, added);
    const removed = await step(ERRORS.userInfoFail, () => makeRoom(tx, collectionId, ref.id));
    if (!removed) fail(ERRORS.indexMaxReached);
    await step(ERRORS.addProcessFail, async () => {
      for (const old of removed) await recordChange(deps, tx, deleteChange(collectionId, old));
      await recordChange(deps, tx, upsertChange(collectionId, ref, doc));
    });
  });
}

/** Inserts the document; a dockey already in the collection answers 406. */
async function insertNew(tx: pg.PoolClient, added: AddedDocument): Promise<DocumentRef> {
  const ref = await step(ERRORS.duplicationCheckFail, () =>
    insertDocument(tx, added.collectionId, added.dockey, added.doc.json),
  );
  if (!ref) fail(ERRORS.alreadyExists);
  return ref;
}

/**
 * Counts the new document in under the collection's slot locks, after the oldest documents that
 * keep it from fitting (normally one; more when the maximum was lowered; none when there is
 * room again) are deleted. Null when nothing can make room (a maximum of 0, or no collection).
 */
async function makeRoom(
  tx: pg.PoolClient,
  collectionId: string,
  newId: string,
): Promise<DocumentRef[] | null> {
  const counts = await lockDocumentSlots(tx, collectionId);
  if (!counts || counts.maxDocuments === 0) return null;
  const excess = counts.documentCount + 1 - counts.maxDocuments;
  const removed = excess > 0 ? await deleteOldestDocuments(tx, collectionId, excess, newId) : [];
  await releaseDocumentSlots(tx, collectionId, removed.length - 1);
  return removed;
}
