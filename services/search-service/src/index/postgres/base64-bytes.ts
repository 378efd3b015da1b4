/**
 * The index's bytea columns cross the wire as base64 text, not as the driver's hex.
 *
 * The driver reads every column as text: a bytea comes as `\x` and two hex digits per byte,
 * first made a JavaScript string, then decoded by pg-types; a Buffer parameter goes out the
 * same way. Measured on 10 MB of random bytes (2026-11-26, Node 20, this machine), from the
 * wire's bytes to the Buffer: hex 199 ms, base64 50 ms; from the Buffer to the parameter's
 * bytes: hex 155 ms, base64 21 ms; PostgreSQL's own `encode` 2× faster to base64 than to hex.
 * A packed segment is megabytes: read into a cold cache right after a merge (or by the merge
 * that replaces it), its hex held the thread for tens of milliseconds.
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
