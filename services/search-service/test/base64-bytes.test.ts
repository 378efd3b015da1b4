import fc from 'fast-check';
import { asBase64, base64Of, bytesOf, fromBase64 } from '../src/index/postgres/base64-bytes';
import { useSearchDatabase } from './helpers/harness';

/**
 * The index's bytea columns cross the wire as base64 (src/index/postgres/base64-bytes.ts): what
 * a write sends with base64Of / fromBase64 is stored as the same bytes, and a read with
 * asBase64 / bytesOf gives them back, through a real PostgreSQL (its line breaks included).
 */
const db = useSearchDatabase();
beforeAll(async () => {
  await db.pool.query('CREATE TABLE wire_bytes (id int PRIMARY KEY, b bytea)');
});

async function roundTrip(id: number, bytes: Buffer | Uint8Array | null): Promise<Buffer | null> {
  await db.pool.query(`INSERT INTO wire_bytes (id, b) VALUES ($1, ${fromBase64('$2')})`, [
    id,
    bytes && base64Of(bytes),
  ]);
  const { rows } = await db.pool.query<{ b: string | null }>(
    `SELECT ${asBase64('w.b')} FROM wire_bytes w WHERE id = $1`,
    [id],
  );
  return rows[0]!.b === null ? null : bytesOf(rows[0]!.b);
}

let next = 0;

test('Bytes written as base64 are stored as those bytes and read back the same, of any length', async () => {
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ maxLength: 2000 }), async (bytes) => {
      const back = await roundTrip(next++, bytes);
      expect(back).toEqual(Buffer.from(bytes));
    }),
    { numRuns: 60 },
  );
});

test('A stored bytea is the bytes themselves, not their base64 text', async () => {
  const bytes = Buffer.from([0, 1, 2, 0xfe, 0xff]);
  await roundTrip(next++, bytes);
  const { rows } = await db.pool.query<{ b: Buffer }>('SELECT b FROM wire_bytes WHERE id = $1', [
    next - 1,
  ]);
  expect(rows[0]!.b).toEqual(bytes);
});

test('A large value, which PostgreSQL sends in lines of 76 characters, reads back whole', async () => {
  const bytes = Buffer.alloc(3 * 2 ** 20);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131) & 0xff;
  const back = await roundTrip(next++, bytes);
  expect(back?.length).toBe(bytes.length);
  expect(back?.equals(bytes)).toBe(true); // toEqual compares 3 MB element by element: seconds
});

test('A view into a larger buffer sends only its own bytes', async () => {
  const whole = Buffer.from([9, 9, 1, 2, 3, 9]);
  expect(await roundTrip(next++, whole.subarray(2, 5))).toEqual(Buffer.from([1, 2, 3]));
  const words = new Uint32Array([0x01020304, 0x05060708]);
  expect(await roundTrip(next++, new Uint8Array(words.buffer, 4, 4))).toEqual(
    Buffer.from(words.buffer, 4, 4),
  );
});

test('NULL stays NULL both ways, and an empty value stays empty', async () => {
  expect(await roundTrip(next++, null)).toBeNull();
  expect(await roundTrip(next++, Buffer.alloc(0))).toEqual(Buffer.alloc(0));
});
