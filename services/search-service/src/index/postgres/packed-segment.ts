import type { PostingKind } from './index-store';
import type { PostingList } from './segment-builder';

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
  const parts: Buffer[] = [];
  for (const list of lists) {
    const term = Buffer.from(list.term, 'utf8');
    const head = Buffer.alloc(3);
    head.write(list.kind, 0, 'latin1');
    head.writeUInt16LE(term.length, 1);
    const length = Buffer.alloc(4);
    length.writeUInt32LE(list.data.length, 0);
    parts.push(head, term, length, list.data);
  }
  return Buffer.concat(parts);
}

/** The packed lists by kind + term (subarrays of `packed`, not copies). */
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
    out.set(kind + term, packed.subarray(p, p + length));
    p += length;
  }
  return out;
}
