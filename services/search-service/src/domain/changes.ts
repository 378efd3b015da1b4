import type { ParsedDoc } from '@hub/contracts';
import type { DocumentChange } from '../index/search-index';
import type { DocumentRef } from '../store/documents';

export function upsertChange(
  collectionId: string,
  ref: DocumentRef,
  doc: ParsedDoc,
): DocumentChange {
  return {
    op: 'upsert',
    collectionId,
    dockey: ref.dockey,
    docId: ref.id,
    version: ref.version,
    doc,
  };
}

export function deleteChange(collectionId: string, ref: DocumentRef): DocumentChange {
  return {
    op: 'delete',
    collectionId,
    dockey: ref.dockey,
    docId: ref.id,
    version: ref.version,
    doc: null,
  };
}
