/**
 * Where the index's bytea values cross the wire as base64 text instead of the driver's hex.
 *
 * The driver reads every column as text: a bytea comes as `\x` and two hex digits per byte,
 * first made a JavaScript string, then decoded by pg-types. A Buffer parameter goes out in
 * binary (no text at all), but an array of them is a text literal of hex. Measured through pg
 * (2026-11-26/27, Node 20, PostgreSQL 15 and the bench's embedded 18):
 * - reading 10–20 MB of bytea: 1.6–1.9× less Node CPU as base64 (hex 233–263 ms per 20 MB,
 *   base64 121–140; on 18, 348–405 against 210–218 ms per 10 MB);
 * - reading 3,000 small values (20 B – 2 KB) in one result: about equal on 18 (11.3 / 13.5 ms of
 *   Node CPU), more as base64 on 15 (10 / 14–15 ms), and the wide mix at 300,000 documents took
 *   8 % more service thread per search with every posting row as base64;
 * - writing 3,000 small values in one unnest: base64 text[] 46–86 ms against bytea[] 61–122 ms;
 * - writing one 10 MB value: a binary Buffer parameter 260–288 ms, base64 329–355 ms.
 *
 * So base64 is for reading values of megabytes: packed segments (read into a cold cache right
 * after folds, and by every merge: their hex held the service thread for tens of milliseconds),
 * a segment's numbers (`doc_ids`, `regdates`: 8 bytes per document) and deleted bitmaps; and for
 * arrays of values written in one unnest (posting rows, deleted bitmaps). Posting rows are read
 * as hex, and a single value is written as a Buffer (binary).
 *
 * - A read selects `asBase64(column)` (`encode(column, 'base64') AS column`; NULL stays NULL)
 *   and turns the value into bytes with `bytesOf` (PostgreSQL breaks base64 into lines of 76
 *   characters; Buffer's decoder skips the line breaks).
 * - A write of many values sends `base64Of(bytes)` as the elements of a text[] parameter and
 *   decodes each in SQL with `fromBase64(element)`.
 * - The columns stay bytea: only the wire changes, so no migration and no reader of the
 *   tables (tests, psql) sees a difference.
 */

/** The select item of a bytea column read as base64 text, named as the column. */
export function asBase64(column: string, name = column.slice(column.lastIndexOf('.') + 1)): string {
  return `encode(${column}, 'base64') AS ${name}`;
}

/** The bytes of a value read with asBase64. */
export function bytesOf(base64: string): Buffer {
  return Buffer.from(base64, 'base64');
}

/** An unnest()ed text[] element of base64: the SQL that decodes it to bytea. */
export function fromBase64(sqlText: string): string {
  return `decode(${sqlText}, 'base64')`;
}

/** The element of a text[] parameter that fromBase64 decodes to these bytes. */
export function base64Of(bytes: Buffer | Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * A statement's JSON entries, each paired with its bytes' base64 read apart from the JSON: a
 * text column of the base64 texts joined by commas, in the entries' order (inside JSON,
 * PostgreSQL escapes every character of a base64 text and breaks it into lines:
 * migrations/1733500000000_search-snapshot-base64-apart.sql). Base64 has no comma; an entry
 * without bytes has an empty text. None at all when their numbers differ, which a statement
 * of that migration cannot answer: the caller then reads them by a statement of its own.
 */
export function pairedWithBase64Apart<E>(
  entries: readonly E[] | null,
  joined: string | null,
): Array<[entry: E, base64: string]> {
  const texts = joined === null ? [] : joined.split(',');
  if (texts.length !== (entries?.length ?? 0)) return [];
  return (entries ?? []).map((entry, i) => [entry, texts[i]!]);
}
