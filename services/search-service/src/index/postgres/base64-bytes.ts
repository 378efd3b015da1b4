/**
 * The index's large bytea values cross the wire as base64 text, not as the driver's hex.
 *
 * The driver reads every column as text: a bytea comes as `\x` and two hex digits per byte,
 * first made a JavaScript string, then decoded by pg-types; a Buffer parameter goes out the
 * same way. Measured through pg on this machine (2026-11-26, Node 20): reading 20 MB of
 * bytea cost 233–263 ms of Node CPU as hex and 121–140 ms as base64; a 10 MB Buffer parameter
 * 155 ms as hex, 21 ms as base64; 2,000 small values (20 B – 2 KB) written in one unnest 19–21
 * ms as hex, 16–21 ms as base64. But 3,000 small values read in one result cost more as base64
 * (14–15 ms against 10 ms): so the posting rows' `data`, many small lists read by every search
 * that misses the cache, stays hex, and base64 is for the values of megabytes: packed segments
 * (read into a cold cache right after folds, and by every merge, their hex held the service
 * thread for tens of milliseconds), a segment's numbers (`doc_ids`, `regdates`: 8 bytes per
 * document) and deleted bitmaps; and for every write.
 *
 * - A read selects `asBase64(column)` (`encode(column, 'base64') AS column`; NULL stays NULL)
 *   and turns the value into bytes with `bytesOf` (PostgreSQL breaks base64 into lines of 76
 *   characters; Buffer's decoder skips the line breaks).
 * - A write sends `base64Of(bytes)` as a text parameter and decodes it in SQL with
 *   `fromBase64('$n')` (an element of an unnest()ed text[] alike).
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

/** A bytea parameter (or column of an unnest) sent as base64 text: the SQL that decodes it. */
export function fromBase64(sqlText: string): string {
  return `decode(${sqlText}, 'base64')`;
}

/** The text parameter of bytes that fromBase64 decodes. */
export function base64Of(bytes: Buffer | Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}
