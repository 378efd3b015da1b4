import { postingKey, type PostingKind, type PostingList } from '../layout';

/**
 * Small segments (at most PACKED_MAX_DOCS documents: every fold, the first merges) keep all
 * their posting lists in one value of the segment row instead of one row per term: a fold
 * then writes one row, not one per touched term (~35 per document), and a search reads the
 * whole small segment once and keeps it in the cache (segments never change).
 *
 * Layout, repeated: kind (1 byte), term length (uint16 LE), term (UTF-8), list length
 * (uint32 LE), list (postings-codec form).
 */
export const PACKED_MAX_DOCS = 4096;

export function packPostings(lists: PostingList[]): Buffer {
  // one buffer of the exact size, each entry written in place (no small buffers to join)
  let size = 0;
  for (const list of lists) size += 7 + Buffer.byteLength(list.term, 'utf8') + list.data.length;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const list of lists) {
    out[at] = list.kind.charCodeAt(0);
    const termLength = out.write(list.term, at + 3, 'utf8');
    out.writeUInt16LE(termLength, at + 1);
    at = out.writeUInt32LE(list.data.length, at + 3 + termLength);
    at += list.data.copy(out, at);
  }
  return out;
}

/** FNV-1a over a kind byte and the term's UTF-8 bytes. */
function hashKey(kind: number, bytes: Uint8Array, start: number, end: number): number {
  let h = Math.imul(0x811c9dc5 ^ kind, 0x01000193);
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/** A posting-list key with its term as UTF-8, made once per search and looked up in every segment. */
export interface PackedKey {
  kind: number;
  term: Buffer;
  hash: number;
}

export function packedKey(kind: PostingKind, term: string): PackedKey {
  const bytes = Buffer.from(term, 'utf8');
  const code = kind.charCodeAt(0);
  return { kind: code, term: bytes, hash: hashKey(code, bytes, 0, bytes.length) };
}

const CATEGORY = 'c'.charCodeAt(0);

/**
 * A packed segment as the search cache keeps it: the value as read, an open-addressing hash
 * table (one Int32Array) of where each list starts, and each category list's start and
 * category number (one Int32Array, for facet counts). Three objects per segment whatever the
 * number of terms (a small segment has ~10,000), so a cache full of segments adds next to
 * nothing for the garbage collector to trace, and its size is known exactly.
 */
export class PackedSegment {
  /** entry start + 1 per slot (0: empty) */
  private readonly slots: Int32Array;
  private readonly mask: number;
  /** per category entry: its start, then its category (categories are int32) */
  private readonly categories: Int32Array;

  constructor(readonly packed: Buffer) {
    let entries = 0;
    const categories: number[] = [];
    for (let p = 0; p < packed.length; entries++) {
      const termEnd = p + 3 + packed.readUInt16LE(p + 1);
      if (packed[p] === CATEGORY)
        categories.push(p, Number(packed.toString('latin1', p + 3, termEnd)));
      p = termEnd + 4 + packed.readUInt32LE(termEnd);
    }
    this.categories = Int32Array.from(categories);
    let size = 16;
    while (size < entries * 2) size *= 2;
    this.slots = new Int32Array(size);
    this.mask = size - 1;
    for (let p = 0; p < packed.length;) {
      const termEnd = p + 3 + packed.readUInt16LE(p + 1);
      let slot = hashKey(packed[p]!, packed, p + 3, termEnd) & this.mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask;
      this.slots[slot] = p + 1;
      p = termEnd + 4 + packed.readUInt32LE(termEnd);
    }
  }

  /** memory held, for the cache's size limit */
  get bytes(): number {
    return this.packed.length + this.slots.byteLength + this.categories.byteLength + 128;
  }

  /** Calls `each` with every category list of the segment: its category and the list. */
  eachCategory(each: (category: number, list: Buffer) => void): void {
    const { packed, categories } = this;
    for (let i = 0; i < categories.length; i += 2) {
      const at = categories[i]!;
      const termEnd = at + 3 + packed.readUInt16LE(at + 1);
      const length = packed.readUInt32LE(termEnd);
      each(categories[i + 1]!, packed.subarray(termEnd + 4, termEnd + 4 + length));
    }
  }

  /**
   * Calls `each` with every entry of one kind (a kind letter's code): its term and where the
   * entry starts (for listAt). In stored order, which is no order: see read/term-dictionary.ts.
   */
  eachTerm(kind: number, each: (term: string, at: number) => void): void {
    const packed = this.packed;
    for (let p = 0; p < packed.length;) {
      const termEnd = p + 3 + packed.readUInt16LE(p + 1);
      if (packed[p] === kind) each(packed.toString('utf8', p + 3, termEnd), p);
      p = termEnd + 4 + packed.readUInt32LE(termEnd);
    }
  }

  /** The list of the entry that starts at `at` (an eachTerm position). */
  listAt(at: number): Buffer {
    const termEnd = at + 3 + this.packed.readUInt16LE(at + 1);
    const length = this.packed.readUInt32LE(termEnd);
    return this.packed.subarray(termEnd + 4, termEnd + 4 + length);
  }

  /** the list of `key` (a subarray of the packed value), or undefined when the segment has none */
  get(key: PackedKey): Buffer | undefined {
    const packed = this.packed;
    const term = key.term;
    for (let slot = key.hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const at = this.slots[slot]! - 1;
      if (at < 0) return undefined;
      if (packed[at] !== key.kind || packed.readUInt16LE(at + 1) !== term.length) continue;
      const termEnd = at + 3 + term.length;
      if (packed.compare(term, 0, term.length, at + 3, termEnd) !== 0) continue;
      const length = packed.readUInt32LE(termEnd);
      return packed.subarray(termEnd + 4, termEnd + 4 + length);
    }
  }
}

/** The packed lists by postingKey (subarrays of `packed`, not copies). */
export function unpackPostings(packed: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  let p = 0;
  while (p < packed.length) {
    const kind = String.fromCharCode(packed[p]!) as PostingKind;
    const termLength = packed.readUInt16LE(p + 1);
    const term = packed.toString('utf8', p + 3, p + 3 + termLength);
    p += 3 + termLength;
    const length = packed.readUInt32LE(p);
    p += 4;
    out.set(postingKey(kind, term), packed.subarray(p, p + length));
    p += length;
  }
  return out;
}
