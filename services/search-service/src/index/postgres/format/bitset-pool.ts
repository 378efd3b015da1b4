import { copyBitset, newBitset, noteBitsetMade, type Bitset } from './bitset';

/**
 * Bitsets lent to one search from a pool of this thread, instead of new ones each time.
 *
 * Why: a search makes 4–8 bitsets of next_docno / 8 bytes (bitmap-search.ts), and every new
 * typed array's buffer is memory V8 counts as external; external memory that grows fast starts
 * full (mark-compact) collections of the whole heap. At 1,000,000 documents a bitset is 125 KB:
 * ~450 searches a second allocated ~0.4 GB/s of them, and the query kinds ran 587 full
 * collections in one measurement (12 at 100,000 documents).
 *
 * The small spec:
 *  - `lendBitsets(pool)` opens a loan; `make(size)` answers a zeroed bitset of exactly
 *    (size + 31) >>> 5 words and `copy(bits)` one of bits' length with its words, each a view
 *    of a pooled buffer of the size class at or above it (a class per eighth of a power of two,
 *    so at most an eighth of a buffer is unused);
 *  - `release()` gives back every bitset of the loan; none may be used after it (the search
 *    releases in its `finally`, after its answer is built: no bitset escapes a search);
 *  - a released buffer is kept while the pool holds at most `maxBytes` of free buffers; beyond
 *    that the classes used least recently go first (to the garbage collector), so collections
 *    of many sizes cost at most what they cost before, and one size costs no allocation;
 *  - what a loan makes counts in bitsetsMade, as newBitset does (the bounds tests).
 * A pool is used by one thread; loans of searches running at once never share a buffer.
 */
export interface BitsetMaker {
  make(size: number): Bitset;
  copy(bits: Bitset): Bitset;
}

/** A BitsetMaker of new bitsets (tests, the evaluation's in-memory engine). */
export const NEW_BITSETS: BitsetMaker = { make: newBitset, copy: copyBitset };

export interface BitsetLoan extends BitsetMaker {
  release(): void;
}

export class BitsetPool {
  /** free buffers by class (words), least recently used class first */
  private readonly free = new Map<number, Uint32Array[]>();
  private freeBytes = 0;

  constructor(readonly maxBytes: number) {}

  /** a buffer of `words`' class, not zeroed */
  take(words: number): Uint32Array {
    const cls = sizeClass(words);
    const list = this.free.get(cls);
    if (list && list.length > 0) {
      const buf = list.pop()!;
      this.freeBytes -= buf.byteLength;
      this.free.delete(cls); // used now: to the most recent end
      if (list.length > 0) this.free.set(cls, list);
      return buf;
    }
    return new Uint32Array(cls);
  }

  give(buf: Uint32Array): void {
    if (buf.byteLength > this.maxBytes) return;
    while (this.freeBytes + buf.byteLength > this.maxBytes) {
      const [cls, list] = this.free.entries().next().value as [number, Uint32Array[]];
      this.freeBytes -= list.pop()!.byteLength;
      if (list.length === 0) this.free.delete(cls);
    }
    const list = this.free.get(buf.length);
    if (list) list.push(buf);
    else this.free.set(buf.length, [buf]);
    this.freeBytes += buf.byteLength;
  }

  /** free bytes held (tests) */
  held(): number {
    return this.freeBytes;
  }
}

/** The class of a bitset of `words` words: rounded up to an eighth of its power of two. */
export function sizeClass(words: number): number {
  if (words <= 64) return 64;
  const step = 2 ** (Math.floor(Math.log2(words)) - 3);
  return Math.ceil(words / step) * step;
}

/** The pool of this thread's searches: 16 MiB of free buffers at most. */
export const SEARCH_BITSETS = new BitsetPool(16 * 1024 * 1024);

export function lendBitsets(pool: BitsetPool = SEARCH_BITSETS): BitsetLoan {
  const lent: Uint32Array[] = [];
  const view = (words: number): Bitset => {
    const buf = pool.take(words);
    lent.push(buf);
    noteBitsetMade();
    return buf.subarray(0, words);
  };
  return {
    make(size) {
      const bits = view((size + 31) >>> 5);
      bits.fill(0);
      return bits;
    },
    copy(bits) {
      const out = view(bits.length);
      out.set(bits);
      return out;
    },
    release() {
      for (const buf of lent) pool.give(buf);
      lent.length = 0;
    },
  };
}
