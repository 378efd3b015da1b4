import { parseDoc, parseDockey, parseFieldUpdate, SEARCH_ERRORS } from '@hub/contracts';
import { LosslessNumber, parse, stringify } from 'lossless-json';
import { inTransaction } from '@hub/service-kit';
import { findDocumentForUpdate, updateDocumentById } from '../store/documents';
import { upsertChange } from './changes';
import { recordChange, type DomainDeps } from './deps';
import { check, fail, failsWith, step } from './steps';

const ERRORS = SEARCH_ERRORS.fieldUpdate;

export interface FieldUpdateInput {
  dockey: string | undefined;
  fieldname: string | undefined;
  fieldvalue: string | undefined;
}

/** The stored doc with one score field set (exact integer text; a new field goes last). */
export function withScoreField(docJson: string, fieldname: string, value: string): string {
  const doc = parse(docJson) as Record<string, unknown>;
  doc[fieldname] = new LosslessNumber(value);
  return stringify(doc) ?? '{}';
}

/**
 * PUT {base}/v2/{cid}/docs/fields: one score field of a stored document. dockey → fieldname →
 * fieldvalue are checked; the document is read and locked, the field set (added when the doc
 * did not have it, as long as the doc stays within 35 fields: else 400 fieldname is invalid),
 * stored, and handed to the engine as the whole merged document.
 */
export async function updateField(
  deps: DomainDeps,
  collectionId: string,
  input: FieldUpdateInput,
): Promise<void> {
  const dockey = check(parseDockey(input.dockey, 'fieldUpdate'));
  const update = check(
    parseFieldUpdate({ fieldname: input.fieldname, fieldvalue: input.fieldvalue }),
  );

  await inTransaction(deps.pool, failsWith(ERRORS.updateFieldProcessFail), async (tx) => {
    const current = await step(ERRORS.updateFieldProcessFail, () =>
      findDocumentForUpdate(tx, collectionId, dockey),
    );
    if (!current) fail(ERRORS.dockeyInvalid);
    const merged = parseDoc(withScoreField(current.doc, update.fieldname, update.value), 'update');
    if (!merged.ok) fail(ERRORS.fieldnameInvalid);
    await step(ERRORS.updateFieldProcessFail, async () => {
      const version = await updateDocumentById(tx, current.id, merged.value.json);
      const ref = { id: current.id, dockey, version };
      await recordChange(deps, tx, upsertChange(collectionId, ref, merged.value));
    });
  });
}
