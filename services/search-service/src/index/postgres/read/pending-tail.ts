import { matchesPrefix } from '../../prefix-expansion';
import type { Snapshot } from './index-store';

/**
 * The pending tail of a search, matched in the service: which of the collection's pending
 * rows (documents not yet folded) a search reads, and their terms among the ones it asks for.
 *
 * - A row is **read** when it has some `wanted` term, or any row with `prefix`.
 * - It is in the **tail** when, besides, it has every `required` term, a term that starts with
 *   the prefix (prefix=1), a category of `ca` (when given), none of `exCa`, and a regdate in
 *   [from, to] (each bound when given).
 * - A tail row is `[doc_id, regdate, its terms among wanted, categories, its title terms among
 *   wanted]`, wanted's order kept; with a prefix, both lists end with the prefix's `mark` when
 *   the row (its title) has a term that starts with it.
 * - `pendingDf`: per `lookups` term, the number of read rows that have it (absent: none).
 *
 * This is what search_snapshot_plan's SQL returned (its rule, moved here: the SQL compared every
 * wanted term with every term of every row); test/pending-tail.test.ts compares the two on
 * random rows and filters. A row's Sets are built once, when it is first read, and the row is
 * cached by its `row_id` (a pending row never changes: a change deletes it and adds another).
 */
export interface SnapshotFilter {
  /** terms a tail row has all of (query-plan.ts tailFilter) */
  required: string[];
  /** terms a read row has one of; a tail row's terms are listed among these */
  wanted: string[];
  /** the terms whose pending document count is wanted (the plan's dictionary lookups) */
  lookups: string[];
  ca: number[] | null;
  exCa: number[] | null;
  /** regdate bounds (bigints as text), inclusive */
  from: string | null;
  to: string | null;
  /** prefix=1: the prefix (prefix-expansion.ts) and `mark`, the plan's term for it (query-plan.ts prefixMark) */
  prefix?: { prefix: string; mark: string } | null;
}

export interface PendingRow {
  /** search_pending.row_id: the row's identity, never reused */
  rowId: number;
  docId: number;
  /** regdate as text (a bigint) */
  regdate: string;
  categories: number[];
  terms: ReadonlySet<string>;
  titleTerms: ReadonlySet<string>;
  /** memory held, for the cache's size limit */
  bytes: number;
}

/** A row as search_snapshot_read returns its parts (terms as arrays). */
export function pendingRow(
  rowId: number,
  docId: number,
  regdate: string,
  categories: number[],
  terms: string[],
  titleTerms: string[],
): PendingRow {
  let bytes = 200 + 8 * categories.length;
  for (const t of terms) bytes += 2 * t.length + 80;
  for (const t of titleTerms) bytes += 2 * t.length + 80;
  return {
    rowId,
    docId,
    regdate,
    categories,
    terms: new Set(terms),
    titleTerms: new Set(titleTerms),
    bytes,
  };
}

function hasPrefixed(terms: ReadonlySet<string>, prefix: string): boolean {
  for (const t of terms) if (matchesPrefix(t, prefix)) return true;
  return false;
}

/** The tail and pending document counts of `rows` for a search's filter (see above). */
export function pendingTail(
  rows: readonly PendingRow[],
  f: SnapshotFilter,
): Pick<Snapshot, 'tail' | 'pendingDf'> {
  const tail: Snapshot['tail'] = [];
  const pendingDf = new Map<string, number>();
  const prefix = f.prefix ?? null;
  const lookups = new Set(f.lookups);
  const ca = f.ca && new Set(f.ca);
  const exCa = f.exCa && new Set(f.exCa);
  const from = f.from === null ? null : BigInt(f.from);
  const to = f.to === null ? null : BigInt(f.to);
  for (const r of rows) {
    if (prefix === null && !f.wanted.some((t) => r.terms.has(t))) continue;
    for (const term of lookups) {
      if (r.terms.has(term)) pendingDf.set(term, (pendingDf.get(term) ?? 0) + 1);
    }
    if (!f.required.every((t) => r.terms.has(t))) continue;
    if (prefix && !hasPrefixed(r.terms, prefix.prefix)) continue;
    if (ca && !r.categories.some((c) => ca.has(c))) continue;
    if (exCa && r.categories.some((c) => exCa.has(c))) continue;
    if (from !== null || to !== null) {
      const regdate = BigInt(r.regdate);
      if ((from !== null && regdate < from) || (to !== null && regdate > to)) continue;
    }
    const terms = f.wanted.filter((t) => r.terms.has(t));
    const titleTerms = f.wanted.filter((t) => r.titleTerms.has(t));
    if (prefix) {
      terms.push(prefix.mark);
      if (hasPrefixed(r.titleTerms, prefix.prefix)) titleTerms.push(prefix.mark);
    }
    tail.push([r.docId, r.regdate, terms, r.categories, titleTerms]);
  }
  return { tail, pendingDf };
}
