import { bitsetsMade, setBit } from '../src/index/postgres/format/bitset';
import { BitsetPool, lendBitsets, sizeClass } from '../src/index/postgres/format/bitset-pool';

/** The bitsets a search borrows (format/bitset-pool.ts). */

test('When a bitset is made from a buffer another search dirtied, it is all zeros and exactly as long as asked', () => {
  const pool = new BitsetPool(1 << 20);
  const first = lendBitsets(pool);
  first.make(100_000).fill(0xffffffff);
  first.release();
  const second = lendBitsets(pool);
  const bits = second.make(99_000);
  expect(bits.length).toBe((99_000 + 31) >>> 5);
  expect(bits.every((w) => w === 0)).toBe(true);
  second.release();
});

test('When a bitset is copied, the copy has its words and its length, and changing one leaves the other', () => {
  const loan = lendBitsets(new BitsetPool(1 << 20));
  const a = loan.make(5_000);
  setBit(a, 7);
  setBit(a, 4_999);
  const b = loan.copy(a);
  expect(b.length).toBe(a.length);
  expect([...b]).toEqual([...a]);
  setBit(b, 100);
  expect(a[3]).toBe(0);
  loan.release();
});

test('When a loan is released, the next search reuses its buffers (of the same size class) instead of allocating', () => {
  const pool = new BitsetPool(1 << 20);
  const first = lendBitsets(pool);
  const buffers = [first.make(50_000).buffer, first.make(50_000).buffer];
  first.release();
  const second = lendBitsets(pool);
  const again = [second.make(50_000).buffer, second.make(49_500).buffer];
  expect(new Set([...buffers, ...again]).size).toBe(2);
  second.release();
});

test('When two searches borrow at once, they never share a buffer', () => {
  const pool = new BitsetPool(1 << 20);
  const a = lendBitsets(pool);
  const b = lendBitsets(pool);
  const mine = [a.make(10_000), a.make(10_000)];
  const theirs = [b.make(10_000), b.make(10_000)];
  expect(new Set([...mine, ...theirs].map((x) => x.buffer)).size).toBe(4);
  a.release();
  b.release();
});

test('When more is given back than the pool may hold, it keeps at most its bound, dropping the least recently used size first', () => {
  const words = 8_192; // 32 KiB a buffer
  const pool = new BitsetPool(3 * 4 * words);
  const small = lendBitsets(pool);
  small.make(32 * 1_000);
  small.release();
  const big = lendBitsets(pool);
  for (let i = 0; i < 5; i++) big.make(32 * words);
  big.release();
  expect(pool.held()).toBeLessThanOrEqual(3 * 4 * words);
  expect(pool.held()).toBe(3 * 4 * words); // three of the big class; the small one went first
});

test('When a loan makes or copies a bitset, it counts among the bitsets made', () => {
  const loan = lendBitsets(new BitsetPool(1 << 20));
  const before = bitsetsMade();
  loan.copy(loan.make(1_000));
  expect(bitsetsMade() - before).toBe(2);
  loan.release();
});

test('A size class holds its words and wastes at most an eighth of itself', () => {
  for (let words = 1; words < 200_000; words += 37) {
    const cls = sizeClass(words);
    expect(cls).toBeGreaterThanOrEqual(words);
    if (words > 64) expect(cls).toBeLessThanOrEqual(words * 1.125 + 1);
  }
});
