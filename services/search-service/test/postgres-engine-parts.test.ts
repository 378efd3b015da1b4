import { tailMatches } from '../src/index/postgres/read/bitmap-search';
import { planQuery } from '../src/index/query-plan';
import { hasBit, newBitset, setBit, setBits } from '../src/index/postgres/format/bitset';
import { CollectionView } from '../src/index/postgres/read/collection-view';
import {
  countPostingsIn,
  decodeOffsets,
  encodePostings,
  orPostingsInto,
} from '../src/index/postgres/format/postings-codec';
import { random } from './helpers/engine-model';
import {
  packedKey,
  PackedSegment,
  packPostings,
  unpackPostings,
} from '../src/index/postgres/format/packed-segment';
import {
  MAX_SEGMENT_DOCS,
  MERGE_FACTOR,
  pickMerge,
} from '../src/index/postgres/fold/segment-builder';

/** The Postgres engine's parts: posting lists, packed segments, the result order, merge policy. */

describe('posting lists', () => {
  test.each([
    ['sparse in a small segment (uint16 offsets)', [0, 5, 65_535], 65_536],
    ['sparse in a large segment (uint32 offsets)', [0, 70_000, 99_999], 100_000],
    ['dense (bitmap)', Array.from({ length: 600 }, (_, i) => i * 3), 2_000],
  ])('When a list is %s, it decodes to the same offsets', (_, offsets, length) => {
    const data = encodePostings(offsets, length);
    expect(decodeOffsets(data)).toEqual(offsets);
    for (const base of [0, 1, 31, 32, 45]) {
      const bits = newBitset(base + length);
      orPostingsInto(data, base, bits);
      expect(setBits(bits)).toEqual(offsets.map((o) => o + base));
    }
  });

  test('When a list is counted against a set (any form, any base), the count is what brute force counts', () => {
    const rand = random(0xc0417);
    for (let round = 0; round < 300; round++) {
      const length = 1 + Math.floor(rand() * (round % 3 === 0 ? 100_000 : 3_000));
      const density = [0.001, 0.05, 0.5, 1][round % 4]!;
      const offsets = Array.from({ length }, (_, i) => i).filter(() => rand() < density);
      const data = encodePostings(offsets, length);
      const base = Math.floor(rand() * 100);
      const bits = newBitset(base + length);
      for (let d = 0; d < base + length; d++) if (rand() < 0.3) setBit(bits, d);
      const want = offsets.filter((o) => hasBit(bits, base + o)).length;
      expect({ round, format: data[0], n: countPostingsIn(data, base, bits) }).toEqual({
        round,
        format: data[0],
        n: want,
      });
    }
  });

  test('When a list is dense, its stored form is the bitmap (never larger than the segment / 8)', () => {
    const all = Array.from({ length: 1000 }, (_, i) => i);
    expect(encodePostings(all, 1000).length).toBe(4 + 128);
  });
});

describe('packed segments', () => {
  const terms = [
    '서울',
    '울에',
    'seoul',
    'a',
    '',
    '🙂x',
    'ﬁ',
    ...Array.from({ length: 3000 }, (_, i) => `t${i}`),
  ];
  const lists = terms.flatMap((term, i) =>
    (['w', 't'] as const).map((kind) => ({
      kind,
      term,
      data: encodePostings(
        [i % 4096, 4095 - (i % 7)].sort((a, b) => a - b),
        4096,
      ),
    })),
  );
  const packed = packPostings([
    ...lists,
    { kind: 'c', term: '7', data: encodePostings([1], 4096) },
  ]);

  test('When a search looks a key up in a packed segment, it finds exactly the list that was packed', () => {
    const segment = new PackedSegment(packed);
    const unpacked = unpackPostings(packed);
    for (const l of lists) {
      expect(segment.get(packedKey(l.kind, l.term))).toEqual(l.data);
      expect(unpacked.get(l.kind + l.term)).toEqual(l.data);
    }
    expect(decodeOffsets(segment.get(packedKey('c', '7'))!)).toEqual([1]);
  });

  test('When a key is not in a packed segment (another term, kind or spelling), the lookup finds nothing', () => {
    const segment = new PackedSegment(packed);
    for (const [kind, term] of [
      ['w', '서울에'],
      ['c', '서울'],
      ['t', 't3000'],
      ['w', 'T1'],
      ['c', '8'],
    ] as const) {
      expect(segment.get(packedKey(kind, term))).toBeUndefined();
    }
    expect(new PackedSegment(Buffer.alloc(0)).get(packedKey('w', 'a'))).toBeUndefined();
  });

  test('When a packed segment is cached, its size counts the value, its table (a power of two of at least twice the lists, 4 bytes each) and its categories (start and number, 8 bytes each)', () => {
    // 6,015 lists → 16,384 slots; one category list
    expect(new PackedSegment(packed).bytes).toBe(packed.length + 16_384 * 4 + 1 * 8 + 128);
  });

  test('When a packed segment lists its categories, it gives every category list and nothing else', () => {
    const seen: Array<[number, number[]]> = [];
    new PackedSegment(packed).eachCategory((c, list) => seen.push([c, decodeOffsets(list)]));
    expect(seen).toEqual([[7, [1]]]);
    new PackedSegment(Buffer.alloc(0)).eachCategory(() => {
      throw new Error('an empty segment has no category');
    });
  });
});

describe('collection view', () => {
  test('When segments are appended, the order is regdate descending, then documents.id descending', () => {
    const view = new CollectionView('c', '1');
    view.append(0, [10, 11, 12], [500, 700, 500]);
    view.append(3, [13, 9], [600, 700]);
    expect(Array.from(view.order.subarray(0, view.size))).toEqual([1, 4, 3, 2, 0]);
    expect(Array.from(view.rank.subarray(0, view.size))).toEqual([4, 0, 3, 2, 1]);
    expect(view.positions(600, 700)).toEqual([0, 3]);
    expect(view.positions(null, 599)).toEqual([3, 5]);
    expect(view.positions(701, null)).toEqual([0, 0]);
  });

  test('When a merged segment covers numbers already loaded, only the new ones are added', () => {
    const view = new CollectionView('c', '1');
    view.append(0, [1, 2], [1, 2]);
    view.append(0, [1, 2, 3], [1, 2, 3]);
    expect(view.size).toBe(3);
    expect(Array.from(view.order.subarray(0, 3))).toEqual([2, 1, 0]);
  });

  test.each([11, 2_024, 31_337, 424_242, 9_999_991])(
    'When many segments arrive at once or one by one (seed %i), the order and ranks are those of a sort of every number',
    (seed) => {
      const next = random(seed);
      for (let i = 0; i < 8; i++) next(); // past xorshift's small first values
      const n = 500 + Math.floor(next() * 3_000);
      const ids = Array.from({ length: n }, (_, i) => i * 7 + Math.floor(next() * 5));
      // few distinct dates, so ties on regdate are common and documents.id decides
      const regdates = Array.from({ length: n }, () => Math.floor(next() * 40));
      const segments: Array<{ firstDocno: number; docIds: number[]; regdates: number[] }> = [];
      for (let first = 0; first < n;) {
        const length = Math.min(n - first, 1 + Math.floor(next() * 400));
        // now and then a segment that also covers numbers before it (a merge)
        const from = next() < 0.2 ? Math.max(0, first - 50) : first;
        segments.push({
          firstDocno: from,
          docIds: ids.slice(from, first + length),
          regdates: regdates.slice(from, first + length),
        });
        first += length;
      }
      const all = Array.from({ length: n }, (_, d) => d).sort(
        (a, b) => regdates[b]! - regdates[a]! || ids[b]! - ids[a]!,
      );
      const atOnce = new CollectionView('c', '1');
      const split = Math.floor(next() * segments.length);
      atOnce.appendSegments(segments.slice(0, split));
      atOnce.appendSegments(segments.slice(split));
      const oneByOne = new CollectionView('c', '1');
      for (const seg of segments) oneByOne.append(seg.firstDocno, seg.docIds, seg.regdates);
      for (const view of [atOnce, oneByOne]) {
        expect(view.size).toBe(n);
        expect(Array.from(view.order.subarray(0, n))).toEqual(all);
        all.forEach((d, position) => expect(view.rank[d]).toBe(position));
      }
    },
  );

  test.each([7, 4_242, 77_777])(
    'When a few numbers at a time join a large view (placed one by one, seed %i), the order and ranks are those of a sort of every number',
    (seed) => {
      const next = random(seed);
      for (let i = 0; i < 8; i++) next();
      const base = 5_000;
      const n = base + 600;
      const ids = Array.from({ length: n }, (_, i) => i * 3 + Math.floor(next() * 3));
      // newest, oldest and in between, with ties on regdate
      const regdates = Array.from({ length: n }, (_, d) =>
        d < base ? Math.floor(next() * 60) : [0, 59, 200, Math.floor(next() * 60)][d % 4]!,
      );
      const view = new CollectionView('c', '1');
      view.append(0, ids.slice(0, base), regdates.slice(0, base));
      for (let first = base; first < n;) {
        const length = Math.min(n - first, 1 + Math.floor(next() * 40));
        view.append(first, ids.slice(first, first + length), regdates.slice(first, first + length));
        first += length;
        const all = Array.from({ length: first }, (_, d) => d).sort(
          (a, b) => regdates[b]! - regdates[a]! || ids[b]! - ids[a]!,
        );
        expect(Array.from(view.order.subarray(0, first))).toEqual(all);
        all.forEach((d, position) => expect(view.rank[d]).toBe(position));
      }
    },
  );

  test('When a few numbers join a view whose arrays must grow, the ranks of the numbers they do not move are kept', () => {
    // 4,090 loaded fill a capacity of 4,096: the next fold of 10 grows every array while its
    // numbers are placed one by one, which rewrites the ranks only from the first it moved
    const base = 4_090;
    const n = base + 10;
    const ids = Array.from({ length: n }, (_, d) => d);
    // the newcomers are the oldest: they go to the end, so every loaded number keeps its place
    const regdates = Array.from({ length: n }, (_, d) => (d < base ? 1_000 + d : d - base));
    const view = new CollectionView('c', '1');
    view.append(0, ids.slice(0, base), regdates.slice(0, base));
    view.append(base, ids.slice(base), regdates.slice(base));
    const all = Array.from({ length: n }, (_, d) => d).sort(
      (a, b) => regdates[b]! - regdates[a]! || ids[b]! - ids[a]!,
    );
    expect(Array.from(view.order.subarray(0, n))).toEqual(all);
    all.forEach((d, position) => expect(view.rank[d]).toBe(position));
  });

  test('When segments leave a gap after the numbers loaded, the view refuses them', () => {
    const view = new CollectionView('c', '1');
    view.append(0, [1, 2], [1, 2]);
    expect(() => view.appendSegments([{ firstDocno: 3, docIds: [4], regdates: [4] }])).toThrow(
      'view of c: gap at 2',
    );
  });
});

describe('merge policy', () => {
  const seg = (docCount: number, firstDocno = 0) => ({ firstDocno, docCount });
  const alike = (docCount: number) => Array.from({ length: MERGE_FACTOR }, () => seg(docCount));

  test('When MERGE_FACTOR neighbours are alike, they merge; a run where one holds more than half of the documents does not', () => {
    expect(pickMerge(alike(100))).toEqual([0, MERGE_FACTOR]);
    expect(pickMerge([seg(5000), ...alike(100).slice(1)])).toBeNull();
    expect(pickMerge([seg(5000), ...alike(100)])).toEqual([1, MERGE_FACTOR + 1]);
    // sizes across 512 (the old level boundary) merge together
    expect(pickMerge([300, 900, 1300, 400, 700, 1200, 500, 600].map((n) => seg(n)))).toEqual([
      0,
      MERGE_FACTOR,
    ]);
  });

  test('When several runs could merge, the one with the fewest documents merges first', () => {
    expect(pickMerge([...alike(2000), ...alike(100)])).toEqual([MERGE_FACTOR, 2 * MERGE_FACTOR]);
  });

  test('When a merge would pass the largest segment size, it does not happen', () => {
    expect(pickMerge(alike(MAX_SEGMENT_DOCS / MERGE_FACTOR))).toEqual([0, MERGE_FACTOR]);
    expect(pickMerge(alike(MAX_SEGMENT_DOCS / MERGE_FACTOR + 1))).toBeNull();
  });

  /** folds of sizes from `size`, each followed by one merge (as the folder does) */
  function simulate(size: (i: number) => number, documents: number) {
    const segments: { firstDocno: number; docCount: number }[] = [];
    let n = 0;
    let rewritten = 0;
    let most = 0;
    for (let i = 0; n < documents; i++) {
      const docCount = size(i);
      segments.push(seg(docCount, n));
      n += docCount;
      const run = pickMerge(segments);
      if (run) {
        const parts = segments.slice(run[0], run[1]);
        const docCount = parts.reduce((sum, p) => sum + p.docCount, 0);
        rewritten += docCount;
        segments.splice(run[0], MERGE_FACTOR, seg(docCount, parts[0]!.firstDocno));
      }
      most = Math.max(most, segments.length);
    }
    return { most, rewritesPerDocument: rewritten / n };
  }
  /** sizes from a fixed sequence in [low, high] (a linear congruential generator) */
  const sizes = (low: number, high: number) => {
    let x = 12345;
    return () => low + ((x = (x * 1103515245 + 12345) % 2 ** 31) % (high - low + 1));
  };

  test.each([
    ['300–1,300 documents (a bulk load)', 300, 1300, 4],
    ['1,800–2,000 documents (full batches)', 1800, 2000, 3],
    ['1–60 documents (a trickle of writes)', 1, 60, 7],
  ])(
    'When folds are of %s, a million documents keep few segments, each document rewritten a few times',
    (_what, low, high, rewrites) => {
      for (const documents of [100_000, 1_000_000]) {
        const { most, rewritesPerDocument } = simulate(sizes(low, high), documents);
        expect(most).toBeLessThanOrEqual(30);
        expect(rewritesPerDocument).toBeLessThanOrEqual(rewrites);
      }
    },
  );
});

describe('pending tail filter', () => {
  /** pending rows: [documents.id, regdate, terms, categories, title terms] */
  const rows: Array<[number, string, string[], number[], string[]]> = [
    [1, '10', ['fox'], [1, 2], ['fox']],
    [2, '20', ['fox'], [3], []],
    [3, '30', ['fox'], [], []],
    [4, '40', ['fox'], [2, 5], ['fox']],
  ];
  const plan = planQuery('fox', () => 0);
  const ids = (ca: number[] | null, exCa: number[] | null) =>
    tailMatches(rows, ca, exCa, plan).map((t) => t.docId);

  test.each([
    ['no lists', null, null, [1, 2, 3, 4]],
    ['ca: any of (a document without categories never matches)', [2, 9, 2], null, [1, 4]],
    ['ex_ca: none of (a document without categories passes)', null, [5, 3, 3], [1, 3]],
    ['both', [2, 3], [1], [2, 4]],
    ['ca of values no document has', [7, 8], null, []],
  ])(
    'When the lists are %s, the tail keeps what the SQL filter would keep',
    (_, ca, exCa, want) => {
      expect(ids(ca, exCa)).toEqual(want);
    },
  );

  test('When a row passes, its regdate becomes a number and its tier says whether q is in its title', () => {
    expect(tailMatches(rows.slice(0, 2), null, null, plan)).toEqual([
      { docId: 1, regdate: 10, tier: 0 },
      { docId: 2, regdate: 20, tier: 1 },
    ]);
  });
});
