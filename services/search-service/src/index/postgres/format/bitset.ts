/**
 * Dense bitsets over a collection's document numbers (bit d = document number d), as
 * Uint32Array words. A collection of 100,000 documents takes 12.5 KB per bitset; AND, AND NOT
 * and a popcount over it are a few thousand word operations. Every bitset is made by newBitset
 * or copyBitset, which count what they make (bitsetsMade): the tests' evidence that a search
 * holds a bounded number of them, whatever its parameters.
 */
export type Bitset = Uint32Array;

let made = 0;

/** Bitsets made by this process so far (newBitset, copyBitset and bitset-pool.ts's loans). */
export function bitsetsMade(): number {
  return made;
}

/** Counts a bitset made elsewhere (a pooled one, bitset-pool.ts). */
export function noteBitsetMade(): void {
  made++;
}

export function newBitset(size: number): Bitset {
  made++;
  return new Uint32Array((size + 31) >>> 5);
}

export function copyBitset(bits: Bitset): Bitset {
  made++;
  return bits.slice();
}

/** true when no bit is set */
export function isEmpty(bits: Bitset): boolean {
  for (let i = 0; i < bits.length; i++) if (bits[i] !== 0) return false;
  return true;
}

export function setBit(bits: Bitset, i: number): void {
  bits[i >>> 5]! |= 1 << (i & 31);
}

export function clearBit(bits: Bitset, i: number): void {
  bits[i >>> 5]! &= ~(1 << (i & 31));
}

export function hasBit(bits: Bitset, i: number): boolean {
  return (bits[i >>> 5]! & (1 << (i & 31))) !== 0;
}

/** a ← a AND b (b may be shorter: missing words are 0) */
export function andInto(a: Bitset, b: Bitset): void {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) a[i]! &= b[i]!;
  a.fill(0, n);
}

/** a ← a AND NOT b */
export function andNotInto(a: Bitset, b: Bitset): void {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) a[i]! &= ~b[i]!;
}

/** a ← a OR b */
export function orInto(a: Bitset, b: Bitset): void {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) a[i]! |= b[i]!;
}

/** a AND NOT b as a new bitset */
export function andNot(a: Bitset, b: Bitset): Bitset {
  const out = copyBitset(a);
  andNotInto(out, b);
  return out;
}

/** the number of set bits of one 32-bit word */
export function popcount32(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** the number of set bits */
export function cardinality(bits: Bitset): number {
  let n = 0;
  for (let i = 0; i < bits.length; i++) if (bits[i] !== 0) n += popcount32(bits[i]!);
  return n;
}

/** every set bit, ascending, into a typed array of `count` (the cardinality) */
export function setBitsArray(bits: Bitset, count: number): Uint32Array {
  const out = new Uint32Array(count);
  let n = 0;
  for (let w = 0; w < bits.length; w++) {
    let v = bits[w]!;
    while (v !== 0) {
      const low = v & -v;
      out[n++] = (w << 5) + (31 - Math.clz32(low));
      v ^= low;
    }
  }
  return out;
}

/** every set bit, ascending */
export function setBits(bits: Bitset): number[] {
  return Array.from(setBitsArray(bits, cardinality(bits)));
}
