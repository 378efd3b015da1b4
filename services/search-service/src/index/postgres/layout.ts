/**
 * What the engine's phases agree on, each defined here once and imported by every phase that
 * uses it: the advisory locks that guard a collection's index, how a document's terms travel to
 * and from Postgres, posting-list kinds and keys, the stored form of a segment's number columns
 * and of deleted bitmaps, and the SQLSTATE of a write whose collection is gone. Tables:
 * migrations/1732500000000_bitmap-index.sql. The form of one posting list is
 * format/postings-codec.ts, of a packed segment format/packed-segment.ts, of an in-memory
 * bitset format/bitset.ts.
 */

// --- locks

/**
 * Advisory lock classes, each taken per collection in the two-int form (class,
 * hashtext(collection_id)), always inside a transaction (pg_*_xact_lock): the fold lock lets one
 * folder at a time fold a collection, the merge lock one merger at a time merge it (apart, so a
 * long merge never holds up folds). A re-analysis batch takes the fold lock shared; deleting a
 * collection takes both.
 */
export const FOLD_LOCK = 0x5f01;
export const MERGE_LOCK = 0x5f02;

/** The arguments of a collection's fold or merge lock whose collection id is `param` ($1 …). */
export function collectionLock(which: 'fold' | 'merge', param: string): string {
  return `${which === 'fold' ? FOLD_LOCK : MERGE_LOCK}, hashtext(${param})`;
}

// --- terms

/**
 * Terms travel between the service and search_pending's text[] columns as one text joined by
 * U+0001, which no term contains (a term is a run of letters, marks and digits: see the
 * analyser).
 */
export const TERM_SEPARATOR = '\u0001';

/** TERM_SEPARATOR as a SQL literal, for string_to_array / array_to_string. */
export const TERM_SEPARATOR_SQL = "E'\\x01'";

/** The terms of a TERM_SEPARATOR-joined text (none: the empty text). */
export function splitTerms(joined: string): string[] {
  return joined ? joined.split(TERM_SEPARATOR) : [];
}

// --- posting lists

/** Posting list kinds: a word of any icontents field, a word of the title, a category. */
export type PostingKind = 'w' | 't' | 'c';

/** One posting list of a segment (data: the postings-codec form). */
export interface PostingList {
  kind: PostingKind;
  term: string;
  data: Buffer;
}

/** A posting list's key in the engine's maps: its kind's letter, then the term. */
export function postingKey(kind: PostingKind, term: string): string {
  return kind + term;
}

/** The kind and term of a postingKey. */
export function postingKeyParts(key: string): { kind: PostingKind; term: string } {
  return { kind: key[0] as PostingKind, term: key.slice(1) };
}

// --- a segment's number columns

/**
 * search_segments.doc_ids and regdates: one float64 little-endian value per document number of
 * the segment, in number order.
 */
export function float64Bytes(values: ArrayLike<number>): Buffer {
  const out = Buffer.alloc(values.length * 8);
  for (let i = 0; i < values.length; i++) out.writeDoubleLE(values[i]!, 8 * i);
  return out;
}

/** The values of a float64Bytes column. */
export function float64s(data: Buffer): Float64Array {
  const out = new Float64Array(data.length >>> 3);
  for (let i = 0; i < out.length; i++) out[i] = data.readDoubleLE(8 * i);
  return out;
}

// --- deleted bitmaps

/**
 * Deleted document numbers are kept in search_deleted as one bitmap per chunk of this many
 * numbers: number n is in chunk floor(n / DELETED_CHUNK) at offset o = n mod DELETED_CHUNK, bit
 * (o mod 8) of byte floor(o / 8), least significant bit first. Read as DELETED_CHUNK / 32
 * uint32 little-endian words these are the words of a format/bitset.ts bitset over the chunk.
 */
export const DELETED_CHUNK = 65_536;

/** The chunk of a document number. */
export function deletedChunkOf(docno: number): number {
  return Math.floor(docno / DELETED_CHUNK);
}

/** A new chunk bitmap, with the bits of `current` (a stored chunk) when given. */
export function deletedChunkBits(current: Buffer | undefined): Buffer {
  const bits = Buffer.alloc(DELETED_CHUNK / 8);
  current?.copy(bits);
  return bits;
}

/** Marks document number `docno` deleted in its chunk's bitmap. */
export function setDeleted(bits: Buffer, docno: number): void {
  const offset = docno % DELETED_CHUNK;
  bits[offset >>> 3]! |= 1 << (offset & 7);
}

/** Whether document number `docno` is marked deleted in its chunk's bitmap. */
export function isDeleted(bits: Buffer, docno: number): boolean {
  const offset = docno % DELETED_CHUNK;
  return (bits[offset >>> 3]! & (1 << (offset & 7))) !== 0;
}

/** A stored chunk bitmap as bitset words over the chunk's numbers. */
export function deletedWords(bits: Buffer): Uint32Array {
  const words = new Uint32Array(DELETED_CHUNK / 32);
  for (let i = 0; i < words.length; i++) words[i] = bits.readUInt32LE(4 * i);
  return words;
}

// --- errors

/** SQLSTATE of a row whose collection (or segment) is gone: foreign_key_violation. */
export const COLLECTION_GONE = '23503';
