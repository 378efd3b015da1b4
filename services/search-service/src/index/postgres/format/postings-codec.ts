import { endianness } from 'node:os';
import { hasBit, popcount32, setBit, setBits, type Bitset } from './bitset';

/**
 * The stored form of one posting list: the document numbers of one term inside one segment,
 * as offsets from the segment's first document number. A 4-byte header (format, 0, 0, 0) and
 * the smallest of three bodies (the two container kinds of roaring bitmaps):
 *   1 — sorted offsets as uint16 (segments of at most 65,536 documents),
 *   2 — sorted offsets as uint32,
 *   3 — a bitmap of the segment's length, uint32 words (bit o: bitset.ts's layout).
 * Little-endian throughout.
 */
const U16 = 1;
const U32 = 2;
const BITMAP = 3;
const HEADER = 4;
const NATIVE_LE = endianness() === 'LE';

export function encodePostings(offsets: ArrayLike<number>, segmentLength: number): Buffer {
  const n = offsets.length;
  const words = (segmentLength + 31) >>> 5;
  const arrayWidth = segmentLength <= 0x10000 ? 2 : 4;
  if (n * arrayWidth <= words * 4) {
    const out = Buffer.alloc(HEADER + n * arrayWidth);
    out[0] = arrayWidth === 2 ? U16 : U32;
    for (let i = 0; i < n; i++) {
      if (arrayWidth === 2) out.writeUInt16LE(offsets[i]!, HEADER + 2 * i);
      else out.writeUInt32LE(offsets[i]!, HEADER + 4 * i);
    }
    return out;
  }
  const out = Buffer.alloc(HEADER + words * 4);
  out[0] = BITMAP;
  const bits = new Uint32Array(words);
  for (let i = 0; i < n; i++) setBit(bits, offsets[i]!);
  for (let w = 0; w < words; w++) out.writeUInt32LE(bits[w]!, HEADER + 4 * w);
  return out;
}

function words(data: Buffer): Uint32Array {
  const count = (data.length - HEADER) >>> 2;
  if (NATIVE_LE && ((data.byteOffset + HEADER) & 3) === 0) {
    return new Uint32Array(data.buffer, data.byteOffset + HEADER, count);
  }
  const out = new Uint32Array(count);
  for (let i = 0; i < count; i++) out[i] = data.readUInt32LE(HEADER + 4 * i);
  return out;
}

/** Sets the posting list's documents (offset + base) in `into`. */
export function orPostingsInto(data: Buffer, base: number, into: Bitset): void {
  walk(data, base, into, false);
}

/**
 * How many of the posting list's documents (offset + base) are set in `bits`, without making
 * a bitset: a test per listed document, or for a bitmap list one AND and popcount per word.
 */
export function countPostingsIn(data: Buffer, base: number, bits: Bitset): number {
  return walk(data, base, bits, true);
}

/** The number of documents in the list (a header read for offsets, a popcount for a bitmap). */
export function postingsCount(data: Buffer): number {
  const format = data[0];
  if (format === U16) return (data.length - HEADER) >>> 1;
  if (format === U32) return (data.length - HEADER) >>> 2;
  let n = 0;
  for (const v of words(data)) n += popcount32(v);
  return n;
}

/**
 * The list's documents (offset + base) against `bits`: set in it (count false), or counted
 * where set in it (count true; the answer, else 0).
 */
function walk(data: Buffer, base: number, bits: Bitset, count: boolean): number {
  const format = data[0];
  let n = 0;
  if (format === U16) {
    for (let p = HEADER; p < data.length; p += 2) {
      const d = base + (data[p]! | (data[p + 1]! << 8));
      if (!count) setBit(bits, d);
      else if (hasBit(bits, d)) n++;
    }
  } else if (format === U32) {
    for (let p = HEADER; p < data.length; p += 4) {
      const d = base + data.readUInt32LE(p);
      if (!count) setBit(bits, d);
      else if (hasBit(bits, d)) n++;
    }
  } else if (format === BITMAP) {
    const w = words(data);
    const first = base >>> 5;
    const shift = base & 31;
    const last = bits.length;
    for (let j = 0; j < w.length; j++) {
      const v = w[j]!;
      if (v === 0) continue;
      const t = first + j;
      const low = v << shift;
      const high = shift === 0 ? 0 : v >>> (32 - shift);
      if (count) {
        if (t < last) n += popcount32(low & bits[t]!);
        if (high !== 0 && t + 1 < last) n += popcount32(high & bits[t + 1]!);
      } else {
        if (t < last) bits[t]! |= low;
        if (high !== 0 && t + 1 < last) bits[t + 1]! |= high;
      }
    }
  } else {
    throw new Error(`unknown posting list format ${format}`);
  }
  return n;
}

/** The offsets of a posting list, ascending. */
export function decodeOffsets(data: Buffer): number[] {
  const format = data[0];
  const out: number[] = [];
  if (format === U16) {
    for (let p = HEADER; p < data.length; p += 2) out.push(data.readUInt16LE(p));
  } else if (format === U32) {
    for (let p = HEADER; p < data.length; p += 4) out.push(data.readUInt32LE(p));
  } else if (format === BITMAP) {
    return setBits(words(data));
  } else {
    throw new Error(`unknown posting list format ${format}`);
  }
  return out;
}
