import type { ParsedDoc } from '@hub/contracts';
import { distinctTerms } from '../../analyser';
import type { PendingDocument } from './change-store';

/**
 * What the index keeps of a document until it is folded: its date, its categories, the terms
 * of its title (the title tier) and of every icontents field. Written by every change and by
 * the re-analysis, so both use this analyser version's terms.
 */
export function pendingTerms(collectionId: string, doc: ParsedDoc): PendingDocument {
  return {
    collectionId,
    regdate: doc.regdate,
    categories: doc.categories ?? [],
    titleTerms: distinctTerms([doc.title]),
    terms: distinctTerms(Object.values(doc.icontents)),
  };
}
