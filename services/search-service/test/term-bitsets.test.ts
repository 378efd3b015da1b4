import fc from 'fast-check';
import { newBitset, setBit, setBits, type Bitset } from '../src/index/postgres/format/bitset';
import { createIndexCache } from '../src/index/postgres/read/index-cache';
import { orUnionInto, type UnionSource } from '../src/index/postgres/read/term-bitsets';

/**
 * Term bitsets (read/term-bitsets.ts): a key's union of lists over a collection's numbers,
 * cached and used by later and earlier snapshots of the same epoch.
 */

/** A snapshot's segments as [firstDocno, docCount, the key's numbers in it]. */
type Segments = Array<[first: number, count: number, numbers: number[]]>;

/** The source a snapshot gives: its segments' lists, each list 2 bytes per number. */
function source(segments: Segments, walked: number[] = []): UnionSource {
  const after = (from: number) => segments.filter(([first, count]) => first + count > from);
  return {
    orFrom(from, bits) {
      let any = false;
      for (const [first, , numbers] of after(from)) {
        walked.push(first);
        for (const n of numbers) setBit(bits, n);
        if (numbers.length) any = true;
      }
      return any;
    },
    bytesFrom: (from) => after(from).reduce((b, [, , numbers]) => b + 2 * numbers.length, 0),
  };
}

const union = (
  cache: ReturnType<typeof createIndexCache>,
  nextDocno: number,
  segments: Segments,
  walked: number[] = [],
): number[] => {
  const bits: Bitset = newBitset(nextDocno);
  orUnionInto(cache, 'c:1:Tw말', { nextDocno }, source(segments, walked), bits);
  return setBits(bits);
};

/** a key searched twice: its second sighting makes the entry (index-cache.ts TERM_BITS_SIGHTINGS) */
const cached = (
  cache: ReturnType<typeof createIndexCache>,
  nextDocno: number,
  segments: Segments,
): number[] => {
  union(cache, nextDocno, segments);
  return union(cache, nextDocno, segments);
};

/** every number below n that is ≡ r mod m: a term in about 1/m of the documents */
const every = (from: number, to: number, m: number) =>
  Array.from({ length: to - from }, (_, i) => from + i).filter((n) => n % m === 0);

test('When a key is searched a third time, its union comes from the cache and no segment is walked', () => {
  const cache = createIndexCache(1 << 20);
  const segments: Segments = [
    [0, 1000, every(0, 1000, 3)],
    [1000, 1000, every(1000, 2000, 3)],
  ];
  expect(union(cache, 2000, segments)).toEqual(every(0, 2000, 3));
  expect(union(cache, 2000, segments)).toEqual(every(0, 2000, 3));
  const walked: number[] = [];
  expect(union(cache, 2000, segments, walked)).toEqual(every(0, 2000, 3));
  expect(walked).toEqual([]);
});

test('When a key is searched once, no bitset is made: its lists are walked', () => {
  const cache = createIndexCache(1 << 20);
  const segments: Segments = [[0, 2000, every(0, 2000, 3)]];
  expect(union(cache, 2000, segments)).toEqual(every(0, 2000, 3));
  expect(cache.termBits('c:1:Tw말')).toBeUndefined();
  union(cache, 2000, segments);
  expect(cache.termBits('c:1:Tw말')!.coveredTo).toBe(2000);
});

test('When term bitsets fill their share, they push out each other and never a posting list', () => {
  const cache = createIndexCache(1 << 20);
  cache.setPosting('1', 'w', '말', Buffer.alloc(700 * 1024));
  const segments: Segments = [[0, 100_000, every(0, 100_000, 2)]];
  for (let key = 0; key < 40; key++) {
    for (let twice = 0; twice < 2; twice++) {
      orUnionInto(
        cache,
        `c:1:T${key}`,
        { nextDocno: 100_000 },
        source(segments),
        newBitset(100_000),
      );
    }
  }
  expect(cache.posting('1', 'w', '말')).toBeDefined();
  expect(cache.termBits('c:1:T39')).toBeDefined();
  expect(cache.termBits('c:1:T0')).toBeUndefined();
});

test('When segments were folded since, a later snapshot walks only those and keeps the cached bits', () => {
  const cache = createIndexCache(1 << 20);
  cached(cache, 2000, [[0, 2000, every(0, 2000, 3)]]);
  const walked: number[] = [];
  const later: Segments = [
    [0, 2000, every(0, 2000, 3)],
    [2000, 100, every(2000, 2100, 3)],
  ];
  expect(union(cache, 2100, later, walked)).toEqual(every(0, 2100, 3));
  expect(walked).toEqual([2000]);
});

test('When a merged segment straddles what the cache covers, it is walked whole and nothing is lost or doubled', () => {
  const cache = createIndexCache(1 << 20);
  cached(cache, 2000, [
    [0, 1000, every(0, 1000, 3)],
    [1000, 1000, every(1000, 2000, 3)],
  ]);
  const merged: Segments = [
    [0, 1000, every(0, 1000, 3)],
    [1000, 1100, every(1000, 2100, 3)],
  ];
  const walked: number[] = [];
  expect(union(cache, 2100, merged, walked)).toEqual(every(0, 2100, 3));
  expect(walked).toEqual([1000]);
});

test('When an earlier snapshot meets an entry made from a later one, it takes only its own numbers', () => {
  const cache = createIndexCache(1 << 20);
  cached(cache, 2100, [
    [0, 2000, every(0, 2000, 3)],
    [2000, 100, every(2000, 2100, 3)],
  ]);
  // 2017 is not a multiple of 32: the word holding numbers 2016 … 2047 is masked
  expect(union(cache, 2017, [[0, 2017, every(0, 2017, 3)]])).toEqual(every(0, 2017, 3));
});

test('When a key lists few numbers, nothing is cached: its lists are walked every time', () => {
  const cache = createIndexCache(1 << 20);
  const segments: Segments = [[0, 100_000, [5, 70_000]]];
  expect(cached(cache, 100_000, segments)).toEqual([5, 70_000]);
  expect(cache.termBits('c:1:Tw말')).toBeUndefined();
});

test('When the numbers folded since reach an eighth of the entry, the entry is made again to cover them', () => {
  const cache = createIndexCache(1 << 20);
  cached(cache, 1000, [[0, 1000, every(0, 1000, 2)]]);
  union(cache, 1200, [
    [0, 1000, every(0, 1000, 2)],
    [1000, 200, every(1000, 1200, 2)],
  ]);
  expect(cache.termBits('c:1:Tw말')!.coveredTo).toBe(1200);
  const walked: number[] = [];
  union(cache, 1200, [[0, 1200, every(0, 1200, 2)]], walked);
  expect(walked).toEqual([]);
});

test('Whatever the order of snapshots, each union equals the OR of its own lists (property)', () => {
  // a collection folded in segments; searches at random points of its history, in any order
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 12 }),
      fc.integer({ min: 1, max: 5 }),
      fc.array(fc.nat(), { minLength: 1, maxLength: 10 }),
      (sizes, m, picks) => {
        const cache = createIndexCache(1 << 20);
        const ends = sizes.map((_, i) => sizes.slice(0, i + 1).reduce((a, b) => a + b, 0));
        for (const pick of picks) {
          const upTo = pick % sizes.length;
          const segments: Segments = sizes
            .slice(0, upTo + 1)
            .map((size, i) => [ends[i]! - size, size, every(ends[i]! - size, ends[i]!, m)]);
          const n = ends[upTo]!;
          expect(union(cache, n, segments)).toEqual(every(0, n, m));
        }
      },
    ),
  );
});
