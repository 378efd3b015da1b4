import fc from 'fast-check';
import { newBitset, setBit, setBits, type Bitset } from '../src/index/postgres/format/bitset';
import {
  andPlanInto,
  fillAll,
  PlanBitsets,
  type OrTerm,
} from '../src/index/postgres/read/plan-bitsets';
import { matchesPlan, matchesTyped, type QueryPlan } from '../src/index/query-plan';

/** A query plan over posting bitsets answers what matching the plan document by document does. */

const TERMS = ['a', 'b', 'c', 'd', 'e'];
const termSet = fc.uniqueArray(fc.constantFrom(...TERMS), { minLength: 1, maxLength: 3 });
const plan: fc.Arbitrary<QueryPlan> = fc.record({
  clauses: fc.array(
    fc.record({
      typed: fc.array(termSet, { minLength: 1, maxLength: 2 }),
      derived: fc.array(termSet, { maxLength: 3 }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
});
const docs = fc.array(fc.uniqueArray(fc.constantFrom(...TERMS), { maxLength: 5 }), {
  maxLength: 70,
});

function lists(documents: string[][]): OrTerm {
  const byTerm = new Map<string, Bitset>();
  documents.forEach((terms, d) => {
    for (const t of terms) {
      if (!byTerm.has(t)) byTerm.set(t, newBitset(documents.length));
      setBit(byTerm.get(t)!, d);
    }
  });
  return (term, bits) => {
    const list = byTerm.get(term);
    if (!list) return false;
    for (let i = 0; i < bits.length; i++) bits[i]! |= list[i]!;
    return true;
  };
}

test('When a plan is ANDed into every document over bitsets, the documents left are those that match it one by one, typed or derived', () => {
  fc.assert(
    fc.property(plan, docs, fc.boolean(), (p, documents, derived) => {
      const size = documents.length;
      const set = newBitset(size);
      fillAll(set, size);
      andPlanInto(set, p, derived, lists(documents), new PlanBitsets(size, newBitset(size)));
      const match = derived ? matchesPlan : matchesTyped;
      const want = documents.flatMap((terms, d) => (match(p, (t) => terms.includes(t)) ? [d] : []));
      expect(setBits(set)).toEqual(want);
    }),
  );
});

test('When fillAll sets every number below the size, no bit past it is set', () => {
  for (const size of [0, 1, 31, 32, 33, 64, 70]) {
    const set = newBitset(size);
    fillAll(set, size);
    expect(setBits(set)).toEqual(Array.from({ length: size }, (_, i) => i));
  }
});
