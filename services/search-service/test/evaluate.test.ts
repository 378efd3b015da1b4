import fc from 'fast-check';
import { newBitset, setBit } from '../src/index/postgres/format/bitset';
import { CollectionView } from '../src/index/postgres/read/collection-view';
import { evaluate, type Evaluation, type TailMatch } from '../src/index/postgres/read/evaluate';

/**
 * evaluate() (read/evaluate.ts) against brute force: numfound and the page of a search over a
 * collection's view, its matches, relevance tiers, dates and pending tail, for sets small
 * enough to be sorted and large enough to be read off the view's order (more than 2,048
 * matches), with date ranges of every width.
 */

/** a search: its collection, its matches by number, and evaluate's parameters as given */
interface Case extends Pick<Evaluation, 'tail' | 'sort' | 'start' | 'len' | 'from' | 'to'> {
  /** regdate and documents.id per document number */
  docs: Array<{ regdate: number; id: number }>;
  /** per number: not a match (-1), a match in tier t (0 … tiers - 1), or a match in no tier */
  member: number[];
  tiers: number;
}

const DAYS = 50;

function caseOf(
  seed: number,
  n: number,
  density: number,
  tiers: number,
  sort: 0 | 1,
  dates: [number | null, number | null],
  start: number,
  len: number,
): Case {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
  const ids = new Set<number>();
  const docs = Array.from({ length: n }, () => {
    let id = 0;
    while (id === 0 || ids.has(id)) id = 1 + Math.floor(next() * (10 * n + 10));
    ids.add(id);
    return { regdate: Math.floor(next() * DAYS), id };
  });
  const member = docs.map(() => (next() < density ? Math.floor(next() * (tiers + 1)) : -1));
  const tail: TailMatch[] = Array.from({ length: Math.floor(next() * 4) }, () => {
    let id = 0;
    while (id === 0 || ids.has(id)) id = 1 + Math.floor(next() * (10 * n + 10));
    ids.add(id);
    return {
      docId: id,
      regdate: Math.floor(next() * DAYS),
      tier: Math.floor(next() * (tiers + 1)),
    };
  });
  const [a, b] = dates;
  const from = a === null || b === null ? a : Math.min(a, b);
  const to = a === null || b === null ? b : Math.max(a, b);
  return { docs, member, tiers, tail, sort, start, len, from, to };
}

/** what evaluate must answer, document by document */
function bruteForce(c: Case): { numfound: number; docIds: string[] } {
  const inRange = (r: number) => (c.from === null || r >= c.from) && (c.to === null || r <= c.to);
  const all = [
    ...c.docs.flatMap((d, i) =>
      c.member[i]! >= 0 && inRange(d.regdate) ? [{ ...d, tier: c.member[i]! }] : [],
    ),
    // the tail was filtered by the dates in SQL: every tail match is in range
    ...c.tail.map((t) => ({ regdate: t.regdate, id: t.docId, tier: Math.min(t.tier, c.tiers) })),
  ];
  all.sort((x, y) => (c.sort === 0 ? x.tier - y.tier : 0) || y.regdate - x.regdate || y.id - x.id);
  return {
    numfound: all.length,
    docIds: all.slice(c.start, c.start + c.len).map((d) => String(d.id)),
  };
}

function evaluated(c: Case): { numfound: number; docIds: string[] } {
  const view = new CollectionView('c', '1');
  view.append(
    0,
    c.docs.map((d) => d.id),
    c.docs.map((d) => d.regdate),
  );
  const n = c.docs.length;
  const matches = newBitset(n);
  const tiers = Array.from({ length: c.tiers }, () => newBitset(n));
  c.member.forEach((m, d) => {
    if (m < 0) return;
    setBit(matches, d);
    if (m < c.tiers) setBit(tiers[m]!, d);
  });
  return evaluate({
    matches,
    tiers,
    view,
    tail: c.tail,
    sort: c.sort,
    start: c.start,
    len: c.len,
    from: c.from,
    to: c.to,
  });
}

const day = fc.option(fc.integer({ min: -2, max: DAYS + 2 }), { nil: null, freq: 3 });
const cases = (n: fc.Arbitrary<number>) =>
  fc
    .tuple(
      fc.integer({ min: 1, max: 2 ** 31 - 1 }),
      n,
      fc.constantFrom(0.02, 0.3, 0.9),
      fc.integer({ min: 0, max: 2 }),
      fc.constantFrom<0 | 1>(0, 1),
      fc.tuple(day, day),
      fc.constantFrom(0, 3, 990),
      fc.constantFrom(1, 10, 100),
    )
    .map((a) => caseOf(...a));

test('When the matches are few enough to sort, numfound and the page are what brute force finds', () => {
  fc.assert(
    fc.property(cases(fc.integer({ min: 0, max: 400 })), (c) => {
      expect(evaluated(c)).toEqual(bruteForce(c));
    }),
    { numRuns: 300 },
  );
});

test('When the matches are too many to sort (read off the view), with dates of any width, numfound and the page are what brute force finds', () => {
  fc.assert(
    fc.property(cases(fc.integer({ min: 2600, max: 9000 })), (c) => {
      expect(evaluated(c)).toEqual(bruteForce(c));
    }),
    { numRuns: 150 },
  );
});
