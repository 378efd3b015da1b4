import fc from 'fast-check';
import type { Queryable } from '@hub/service-kit';
import { newBitset, setBits } from '../src/index/postgres/format/bitset';
import { PackedSegment, packPostings } from '../src/index/postgres/format/packed-segment';
import { encodePostings } from '../src/index/postgres/format/postings-codec';
import type { PostingList } from '../src/index/postgres/layout';
import { createIndexCache } from '../src/index/postgres/read/index-cache';
import { readPrefixPostings, type Snapshot } from '../src/index/postgres/read/index-store';
import { readPrefixLists } from '../src/index/postgres/read/term-dictionary';
import { PackedTermDictionary } from '../src/index/postgres/format/packed-term-dictionary';
import { prefixUpperBound } from '../src/index/prefix-expansion';
import { useSearchDatabase } from './helpers/harness';

/**
 * The term dictionary of prefix=1 (read/term-dictionary.ts, format/packed-term-dictionary.ts): a packed segment's sorted terms
 * answer exactly the terms a brute force finds (property), and a row segment's prefix is an
 * index range of search_postings, never a scan of the segment's terms (EXPLAIN).
 */

const db = useSearchDatabase();

/** a few letters so prefixes share beginnings; Hangul, Latin, astral */
const letter = fc.constantFrom('a', 'b', 'ab', '서', '울', '서울', 'é', '😀', 'z');
const term = fc.array(letter, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(''));

describe('PackedTermDictionary of a packed segment', () => {
  test('When a prefix is looked up, the terms and lists are exactly those a brute force finds', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(term, { maxLength: 40 }),
        fc.uniqueArray(term, { maxLength: 10 }),
        term,
        (words, titleWords, prefix) => {
          const size = words.length + 1;
          const lists: PostingList[] = [
            ...words.map((t, i) => ({
              kind: 'w' as const,
              term: t,
              data: encodePostings([i], size),
            })),
            ...titleWords.map((t) => ({
              kind: 't' as const,
              term: t,
              data: encodePostings([0], size),
            })),
            { kind: 'c', term: '3', data: encodePostings([0], size) },
          ];
          const dictionary = new PackedTermDictionary(new PackedSegment(packPostings(lists)));
          const want = words.filter((t) => t.startsWith(prefix));
          expect(dictionary.termsWith('w', prefix).sort()).toEqual([...want].sort());
          expect(dictionary.termsWith('t', prefix).sort()).toEqual(
            titleWords.filter((t) => t.startsWith(prefix)).sort(),
          );
          const bits = newBitset(size + 5);
          expect(dictionary.orInto('w', prefix, 5, bits)).toBe(want.length > 0);
          const docnos = words.flatMap((t, i) => (t.startsWith(prefix) ? [5 + i] : []));
          expect(setBits(bits)).toEqual(docnos);
        },
      ),
    );
  });
});

describe('prefix look-up of packed segments', () => {
  test('When prefix searches of segments no search has sorted come together, each segment is sorted once', async () => {
    const size = 4;
    const segments = new Map(
      ['1', '2', '3'].map((id, i) => [
        id,
        new PackedSegment(
          packPostings([
            { kind: 'w', term: `서울${i}`, data: encodePostings([i], size) },
            { kind: 'w', term: `부산${i}`, data: encodePostings([3], size) },
          ]),
        ),
      ]),
    );
    const cache = createIndexCache(1 << 20);
    let sorted = 0;
    const setTermDictionary = cache.setTermDictionary.bind(cache);
    cache.setTermDictionary = (id, dictionary) => {
      sorted++;
      setTermDictionary(id, dictionary);
    };
    const snap: Snapshot = {
      collectionId: 'c1',
      epoch: '1',
      nextDocno: 3 * size,
      segments: ['1', '2', '3'].map((id, i) => ({
        id,
        firstDocno: i * size,
        docCount: size,
        packed: true,
      })),
      deleted: [],
      tombstones: [],
      tail: [],
      pendingDf: new Map(),
    };
    const packed = { load: async () => segments };
    const unused = {} as Queryable; // packed segments only: no row segment is read
    const found = await Promise.all(
      [1, 2, 3].map(() => readPrefixLists(unused, cache, packed, snap, '서', ['w'])),
    );
    expect(sorted).toBe(3);
    for (const lists of found) {
      const bits = newBitset(snap.nextDocno);
      expect(lists!.orInto('w', bits)).toBe(true);
      expect(setBits(bits)).toEqual([0, 5, 10]);
    }
  });
});

describe('prefix look-up of a row segment', () => {
  test('When the prefix range is read, Postgres plans an index scan of search_postings primary key', async () => {
    let sent: { text: string; values: unknown[] } | null = null;
    const recorder = {
      query: async (config: { text: string; values: unknown[] }) => {
        sent = config;
        return { rows: [] };
      },
    } as unknown as Queryable;
    await readPrefixPostings(recorder, ['1'], true, 'sea', prefixUpperBound('sea'));
    const { text, values } = sent!;
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      const plan = await client.query(`EXPLAIN ${text}`, values);
      const lines = plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
      // each kind's range bounds its scan: segment and kind equal, term between the bounds
      for (const kind of ['w', 't']) {
        const cond = `Index Cond: ((segment_id = s.id) AND (kind = '${kind}'::"char") AND (term >= 'sea'::text) AND (term < 'seb'::text))`;
        expect(lines).toContain(cond);
      }
      expect(lines).not.toMatch(/\n\s+Filter/);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  });
});
