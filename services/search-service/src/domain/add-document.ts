import { parseDoc, parseDockey, parseForce, SEARCH_ERRORS, type ParsedDoc } from '@hub/contracts';
import { ServiceError } from '@hub/service-kit';
import type pg from 'pg';
import {
  commitWithDocumentSlot,
  lockDocumentSlots,
  NoDocumentSlot,
  noDocumentSlot,
  releaseDocumentSlots,
} from '../store/collections';
import { inTransaction } from '@hub/service-kit';
import {
  AddStatementParams,
  addInOneStatement,
  deleteOldestDocuments,
  insertDocument,
  insertDocumentSql,
  insertedDocument,
  type DocumentRef,
} from '../store/documents';
import { deleteChange, upsertChange } from './changes';
import { addedDocumentSql, recordChange, type DomainDeps } from './deps';
import { check, fail, failsWith, step } from './steps';

const ERRORS = SEARCH_ERRORS.add;

export interface AddInput {
  dockey: string | undefined;
  force: string | undefined;
  doc: string | undefined;
}

/**
 * POST {base}/v2/{cid}/docs. dockey → force → doc are checked; then one transaction inserts
 * the document (a dockey already there: 406 document is already exists), hands the change to
 * the engine and the thumbnails, and takes a document slot together with its COMMIT. When the
 * collection is full: 406 index max reached, or with force=1 the transaction is done again
 * making room by deleting the oldest documents under the collection's slot locks.
 */
export async function addDocument(
  deps: DomainDeps,
  collectionId: string,
  input: AddInput,
): Promise<void> {
  const dockey = check(parseDockey(input.dockey, 'add'));
  const force = parseForce(input.force);
  const doc = check(parseDoc(input.doc, 'add'));

  try {
    const params = new AddStatementParams();
    const listenerSql = await step(ERRORS.addProcessFail, async () =>
      addedDocumentSql(deps, { collectionId, dockey, doc }, params),
    );
    if (listenerSql) await addInOneRoundTrip(deps, collectionId, dockey, doc, listenerSql, params);
    else await addWhileThereIsRoom(deps, collectionId, dockey, doc);
  } catch (e) {
    if (!(e instanceof NoDocumentSlot)) throw e;
    if (e.why === 'gone') fail(ERRORS.databaseException, e);
    if (!force) fail(ERRORS.indexMaxReached);
    await addReplacingTheOldest(deps, collectionId, dockey, doc);
  }
}

/**
 * The usual add in one round trip, when every listener can record a new document inside the
 * add's statement (see addInOneStatement). A failure is told apart by where Postgres says it
 * happened: the slot (database exception), a listener's table (document add process fail), or
 * else the insert itself (document duplication check fail).
 */
async function addInOneRoundTrip(
  deps: DomainDeps,
  collectionId: string,
  dockey: string,
  doc: ParsedDoc,
  listenerSql: string[],
  params: AddStatementParams,
): Promise<void> {
  let added: DocumentRef | null;
  try {
    added = await addInOneStatement(deps.pool, collectionId, dockey, doc.json, listenerSql, params);
  } catch (e) {
    const noSlot = noDocumentSlot(e);
    if (noSlot) throw noSlot;
    const where = e as { where?: string; table?: string };
    if (where.where?.includes('take_document_slot')) fail(ERRORS.databaseException, e);
    if (where.table && where.table !== 'documents') fail(ERRORS.addProcessFail, e);
    fail(ERRORS.duplicationCheckFail, e);
  }
  if (!added) fail(ERRORS.alreadyExists);
}

/**
 * The usual add in three round trips: BEGIN with the insert (the duplicate check), the change
 * to the engine and thumbnails, then the slot with the COMMIT.
 */
async function addWhileThereIsRoom(
  deps: DomainDeps,
  collectionId: string,
  dockey: string,
  doc: ParsedDoc,
): Promise<void> {
  // the first round trip is BEGIN and the duplicate check together
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
      const added = insertedDocument(first!, dockey);
      if (!added) fail(ERRORS.alreadyExists);
      await step(ERRORS.addProcessFail, () =>
        recordChange(deps, tx, upsertChange(collectionId, added, doc)),
      );
    },
    {
      first: insertDocumentSql(collectionId, dockey, doc.json),
      commit: commitWithDocumentSlot(collectionId),
    },
  );
}

/** force=1 on a full collection: the oldest documents make room, in the same transaction. */
async function addReplacingTheOldest(
  deps: DomainDeps,
  collectionId: string,
  dockey: string,
  doc: ParsedDoc,
): Promise<void> {
  await inTransaction(deps.pool, failsWith(ERRORS.databaseException), async (tx) => {
    const added = await insertNew(tx, collectionId, dockey, doc);
    const removed = await step(ERRORS.userInfoFail, () => makeRoom(tx, collectionId, added.id));
    if (!removed) fail(ERRORS.indexMaxReached);
    await step(ERRORS.addProcessFail, async () => {
      for (const old of removed) await recordChange(deps, tx, deleteChange(collectionId, old));
      await recordChange(deps, tx, upsertChange(collectionId, added, doc));
    });
  });
}

/** Inserts the document; a dockey already in the collection answers 406. */
async function insertNew(
  tx: pg.PoolClient,
  collectionId: string,
  dockey: string,
  doc: ParsedDoc,
): Promise<DocumentRef> {
  const added = await step(ERRORS.duplicationCheckFail, () =>
    insertDocument(tx, collectionId, dockey, doc.json),
  );
  if (!added) fail(ERRORS.alreadyExists);
  return added;
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
