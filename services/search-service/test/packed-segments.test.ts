import type { Queryable } from '@hub/service-kit';
import { encodePostings } from '../src/index/postgres/format/postings-codec';
import {
  packPostings,
  PackedSegment,
  packedKey,
} from '../src/index/postgres/format/packed-segment';
import { createIndexCache } from '../src/index/postgres/read/index-cache';
import { createPackedSegments } from '../src/index/postgres/read/packed-segments';

/**
 * Packed segments for searches (read/packed-segments.ts): from the cache, else Postgres, each
 * segment read once however many searches miss it at the same time. The database here is a
 * stand-in that answers the packed-segment query from a table and counts the reads, so that
 * what each search sent is visible.
 */

const segmentBytes = (term: string) =>
  packPostings([{ kind: 'w', term, data: encodePostings([0, 1, 2], 3) }]);

/** A Queryable holding packed segments by id; every query waits for `gate` when one is set. */
function fakeDb(stored: Map<string, Buffer>) {
  const reads: string[][] = [];
  let gate: Promise<void> | null = null;
  let failNext = false;
  const db = {
    async query(q: { values: [string[]] }) {
      const ids = q.values[0];
      reads.push(ids);
      if (gate) await gate;
      if (failNext) {
        failNext = false;
        throw new Error('connection lost');
      }
      const rows = ids
        .filter((id) => stored.has(id))
        .map((id) => ({ id, packed: stored.get(id)!.toString('base64') }));
      return { rows };
    },
  } as unknown as Queryable;
  return {
    db,
    reads,
    hold: () => {
      let open!: () => void;
      gate = new Promise((r) => (open = r));
      return () => {
        gate = null;
        open();
      };
    },
    failNextRead: () => {
      failNext = true;
    },
  };
}

const hasTerm = (s: PackedSegment | undefined, term: string) =>
  s?.get(packedKey('w', term)) !== undefined;

test('Two searches missing the same segment at once read it once and share it', async () => {
  const stored = new Map([['1', segmentBytes('apple')]]);
  const { db, reads, hold } = fakeDb(stored);
  const segments = createPackedSegments(createIndexCache(2 ** 20));
  const open = hold();
  const first = segments.load(db, ['1']);
  const second = segments.load(db, ['1']);
  open();
  const [a, b] = await Promise.all([first, second]);
  expect(reads).toEqual([['1']]);
  expect(a!.get('1')).toBe(b!.get('1'));
  expect(hasTerm(a!.get('1'), 'apple')).toBe(true);
});

test('A search reads only the segments no other search is reading, and waits for the rest', async () => {
  const stored = new Map([
    ['1', segmentBytes('apple')],
    ['2', segmentBytes('pear')],
  ]);
  const { db, reads, hold } = fakeDb(stored);
  const segments = createPackedSegments(createIndexCache(2 ** 20));
  const open = hold();
  const first = segments.load(db, ['1']);
  const second = segments.load(db, ['1', '2']);
  open();
  const b = await second;
  await first;
  expect(reads).toEqual([['1'], ['2']]);
  expect(hasTerm(b!.get('1'), 'apple') && hasTerm(b!.get('2'), 'pear')).toBe(true);
});

test('A segment read before is taken from the cache, with no query', async () => {
  const stored = new Map([['1', segmentBytes('apple')]]);
  const { db, reads } = fakeDb(stored);
  const segments = createPackedSegments(createIndexCache(2 ** 20));
  await segments.load(db, ['1']);
  const again = await segments.load(db, ['1']);
  expect(reads).toEqual([['1']]);
  expect(hasTerm(again!.get('1'), 'apple')).toBe(true);
});

test('A segment gone from Postgres answers null to the search that read it', async () => {
  const { db } = fakeDb(new Map([['1', segmentBytes('apple')]]));
  const segments = createPackedSegments(createIndexCache(2 ** 20));
  expect(await segments.load(db, ['1', '9'])).toBeNull();
});

test("A segment another search's read found gone is read again on the search's own connection", async () => {
  const gone = fakeDb(new Map());
  const steady = fakeDb(new Map([['1', segmentBytes('apple')]]));
  const segments = createPackedSegments(createIndexCache(2 ** 20));
  const open = gone.hold();
  const pooled = segments.load(gone.db, ['1']);
  const inTransaction = segments.load(steady.db, ['1']);
  open();
  expect(await pooled).toBeNull();
  const own = await inTransaction;
  expect(steady.reads).toEqual([['1']]);
  expect(hasTerm(own!.get('1'), 'apple')).toBe(true);
});

test('A failed read fails every search that waited for it, and the next search reads anew', async () => {
  const stored = new Map([['1', segmentBytes('apple')]]);
  const { db, reads, hold, failNextRead } = fakeDb(stored);
  const segments = createPackedSegments(createIndexCache(2 ** 20));
  failNextRead();
  const open = hold();
  const first = segments.load(db, ['1']);
  const second = segments.load(db, ['1']);
  open();
  await expect(first).rejects.toThrow('connection lost');
  await expect(second).rejects.toThrow('connection lost');
  const third = await segments.load(db, ['1']);
  expect(reads).toEqual([['1'], ['1']]);
  expect(hasTerm(third!.get('1'), 'apple')).toBe(true);
});
