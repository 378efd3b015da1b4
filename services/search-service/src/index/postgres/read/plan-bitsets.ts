import type { QueryPlan, TermSet } from '../../query-plan';
import { andInto, isEmpty, orInto, type Bitset } from '../format/bitset';
import { NEW_BITSETS, type BitsetMaker } from '../format/bitset-pool';

/**
 * A query plan (query-plan.ts) evaluated over posting bitsets: the documents that match it as
 * typed, or with its derived forms. Pure over a term → list lookup, so the engine (its lists
 * of one snapshot) and the evaluation (eval/memory-engine.ts, lists in memory) share it.
 *
 * Work: each clause is ANDed into the set in turn, stopping once the set is empty; a clause of
 * one alternative ANDs its terms' lists directly (one scratch bitset: what a search made before
 * derived forms), a clause of several ORs its alternatives, each restricted to the set so far,
 * into two more bitsets made once per evaluation (PlanBitsets).
 */

/** ORs the lists of a term into `bits`; false when there is none (bits untouched). */
export type OrTerm = (term: string, bits: Bitset) => boolean;

/** The bitsets a plan's evaluation works in, made when a clause first needs them. */
export class PlanBitsets {
  private clause: Bitset | null = null;
  private alternative: Bitset | null = null;
  constructor(
    readonly size: number,
    /** the scratch one term's lists are ORed into */
    readonly scratch: Bitset,
    /** where the clause's bitsets come from (a search's loan, bitset-pool.ts) */
    private readonly bits: BitsetMaker = NEW_BITSETS,
  ) {}

  clauseSet(): Bitset {
    return (this.clause ??= this.bits.make(this.size));
  }

  alternativeSet(): Bitset {
    return (this.alternative ??= this.bits.make(this.size));
  }
}

/** set ← set AND the lists of each term, stopping once set is empty. */
export function andTermsInto(set: Bitset, terms: TermSet, lists: OrTerm, work: PlanBitsets) {
  for (const term of terms) {
    if (isEmpty(set)) return;
    work.scratch.fill(0);
    if (lists(term, work.scratch)) andInto(set, work.scratch);
    else set.fill(0);
  }
}

/**
 * set ← set AND the plan: every clause by any of its typed alternatives, or (`derived`) by any
 * of its derived ones too. `set` starts as the documents to consider (every document, or the
 * matches to rank).
 */
export function andPlanInto(
  set: Bitset,
  plan: QueryPlan,
  derived: boolean,
  lists: OrTerm,
  work: PlanBitsets,
): void {
  for (const c of plan.clauses) {
    if (isEmpty(set)) return;
    const alternatives = derived ? [...c.typed, ...c.derived] : c.typed;
    if (alternatives.length === 1) {
      andTermsInto(set, alternatives[0]!, lists, work);
      continue;
    }
    const clause = work.clauseSet();
    clause.fill(0);
    const alternative = work.alternativeSet();
    for (const terms of alternatives) {
      alternative.set(set);
      andTermsInto(alternative, terms, lists, work);
      orInto(clause, alternative);
    }
    set.set(clause);
  }
}

/** Sets every document number below `size` in `set` (a plan's evaluation starts there). */
export function fillAll(set: Bitset, size: number): void {
  set.fill(0xffffffff);
  const rest = size & 31;
  if (set.length > 0 && rest !== 0) set[set.length - 1] = (1 << rest) - 1;
}
