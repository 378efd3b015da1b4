import type pg from 'pg';
import { parseDoc } from '@hub/contracts';
import { asIs, createLogger, inTransaction } from '@hub/service-kit';
import type { TestDatabase } from '@hub/testing';
import type { DocumentChange } from '../src/index/search-index';
import { createSearchTestDatabase } from './helpers/harness';
import { startMeiliStub, type MeiliStub } from './meili-stub';

export function testDatabase(): Promise<TestDatabase> {
  return createSearchTestDatabase(20);
}

/**
 * This file's database and Meilisearch stub, made before its tests (handed to `opened`) and
 * closed after them.
 */
export function useDatabaseAndStub(opened: (db: TestDatabase, stub: MeiliStub) => void): void {
  let db: TestDatabase;
  let stub: MeiliStub;
  beforeAll(async () => {
    db = await testDatabase();
    stub = await startMeiliStub();
    opened(db, stub);
  });
  afterAll(async () => {
    await stub.close();
    await db.drop();
  });
}

export const silentLogger = createLogger('search-service-test', 'silent');

/** `fn` in one committed transaction (what a write of the service does around recordChange). */
export function withTx<T>(pool: pg.Pool, fn: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, asIs, fn);
}

export interface ChangeSpec {
  collectionId?: string;
  dockey: string;
  docId: string | number;
  version: string | number;
  title?: string;
  image?: string;
  categories?: number[];
  regdate?: number;
}

/** An upsert change with a real ParsedDoc (parsed by @hub/contracts). */
export function upsert(spec: ChangeSpec): DocumentChange {
  const fields: Record<string, unknown> = {
    icontents_title: spec.title ?? `title ${spec.dockey} v${spec.version}`,
    icontents_body: `body of ${spec.dockey}`,
    score_regdate: spec.regdate ?? 1700000000,
  };
  if (spec.image) fields.contents_image = spec.image;
  if (spec.categories) fields.categories = spec.categories;
  const parsed = parseDoc(JSON.stringify(fields));
  if (!parsed.ok) throw new Error(parsed.error.text);
  return { ...identity(spec), op: 'upsert', doc: parsed.value };
}

export function remove(spec: ChangeSpec): DocumentChange {
  return { ...identity(spec), op: 'delete', doc: null };
}

/** Which document and version a change is about (collection abcd1234 unless given). */
function identity(spec: ChangeSpec) {
  return {
    collectionId: spec.collectionId ?? 'abcd1234',
    dockey: spec.dockey,
    docId: String(spec.docId),
    version: String(spec.version),
  };
}

export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
  stepMs = 5,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > timeoutMs)
      throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/**
 * Terminates every client session of this database but this one and those of
 * `sparedApplication`: the relays' connections, idle in their pool or mid-claim or
 * mid-record (they hold no transaction while they wait on the index, so waiting for one
 * idle in a transaction would rarely find any).
 */
export async function killRelaySessions(pool: pg.Pool, sparedApplication = '-'): Promise<number> {
  const r = await pool.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
        AND application_name <> $1`,
    [sparedApplication],
  );
  return r.rowCount ?? 0;
}
