import type pg from 'pg';
import { createPool } from '@hub/service-kit';
import type { TestDatabase } from '@hub/testing';
import {
  createMeilisearchIndex,
  type MeilisearchIndex,
} from '../src/index/meilisearch/meilisearch-index';
import { meiliDocumentId } from '../src/index/meilisearch/mapping';
import { compareVersions } from '../src/index/meilisearch/outbox/coalesce';
import { startMeiliStub, type MeiliStub } from './meili-stub';
import {
  killRelaySessions,
  remove,
  silentLogger,
  testDatabase,
  upsert,
  waitFor,
  withTx,
} from './outbox-fixtures';

/**
 * Three relays against a flaky index: HTTP 5xx, hanging requests, failed and slow tasks,
 * outages, and relays killed mid-batch, while a writer commits a few hundred changes.
 * Afterwards the index must hold exactly the last committed state, and no document may ever
 * have gone back to an older version.
 */

let db: TestDatabase;
let stub: MeiliStub;
// the writer has its own pool, so that the relay killer never hits a write transaction
let writers: pg.Pool;
const relays: MeilisearchIndex[] = [];

beforeAll(async () => {
  db = await testDatabase();
  stub = await startMeiliStub();
  const url = new URL(db.url);
  url.searchParams.set('application_name', 'chaos-writer');
  writers = createPool(url.toString(), 4);
});
afterAll(async () => {
  await Promise.all(relays.map((r) => r.stop()));
  await writers.end();
  await stub.close();
  await db.drop();
});

// a small deterministic PRNG so that a failure can be replayed
function prng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

test('When the index fails in every way while changes commit, every committed change arrives and none goes backwards', async () => {
  const seed = Number(process.env.CHAOS_SEED ?? 20241124);
  // the chaos and the writer draw from their own sequences, so that which faults strike, and
  // in which order, does not depend on how fast this machine commits
  const chaosRandom = prng(seed);
  const random = prng(seed + 1);
  for (let i = 0; i < 3; i++) {
    relays.push(
      createMeilisearchIndex({
        pool: db.pool,
        url: stub.url,
        logger: silentLogger,
        requestTimeoutMs: 200,
        taskTimeoutMs: 400,
        relay: { baseBackoffMs: 20, maxBackoffMs: 150, pollIntervalMs: 50, batchSize: 7 },
      }),
    );
  }
  await relays[0]!.ensureSettings();
  relays.forEach((r) => r.start());

  const dockeys = Array.from({ length: 15 }, (_, i) => `key-${i}`);
  const model = new Map<string, { docId: number; version: number; exists: boolean }>();
  let nextDocId = 1;
  let kills = 0;
  /** every kind of fault the chaos strikes, and those that struck */
  const faults = ['5xx', 'hang', 'failed task', 'slow task', 'outage', 'kill'];
  const struck = new Set<string>();

  let chaosOn = true;
  const chaos = (async () => {
    while (chaosOn) {
      const r = chaosRandom();
      if (r < 0.2) {
        stub.failRequests(1 + Math.floor(chaosRandom() * 3), 500 + Math.floor(chaosRandom() * 4));
        struck.add('5xx');
      } else if (r < 0.3) {
        stub.hangRequests(1);
        struck.add('hang');
      } else if (r < 0.45) {
        stub.failTasks(1, 'internal');
        struck.add('failed task');
      } else if (r < 0.55) {
        stub.taskDelayMs = Math.floor(chaosRandom() * 60);
        struck.add('slow task');
      } else if (r < 0.65) {
        stub.down = true;
        await new Promise((res) => setTimeout(res, 100));
        stub.down = false;
        struck.add('outage');
      } else if (r < 0.8) {
        const killed = await killRelaySessions(db.pool, 'chaos-writer');
        kills += killed;
        if (killed > 0) struck.add('kill');
      }
      await new Promise((res) => setTimeout(res, 20 + chaosRandom() * 40));
    }
  })();
  const everyFaultStruck = () => faults.every((f) => struck.has(f));

  const engine = relays[0]!;
  // at least 300 changes, and on until every kind of fault has struck while changes commit
  // (a fast machine would otherwise finish its 300 before the chaos got round to all of them)
  for (let i = 0; i < 300 || (!everyFaultStruck() && i < 5_000); i++) {
    const dockey = dockeys[Math.floor(random() * dockeys.length)]!;
    const state = model.get(dockey);
    const del = state?.exists && random() < 0.25;
    let change;
    if (del) {
      // as the store does: a delete carries the version of the document's last upsert
      state.exists = false;
      change = remove({ dockey, docId: state.docId, version: state.version });
    } else if (state?.exists) {
      state.version++;
      change = upsert({ dockey, docId: state.docId, version: state.version });
    } else {
      const fresh = { docId: nextDocId++, version: 1, exists: true };
      model.set(dockey, fresh);
      change = upsert({ dockey, docId: fresh.docId, version: 1 });
    }
    await withTx(writers, (tx) => engine.recordChange(tx, change));
    if (random() < 0.3) await new Promise((res) => setTimeout(res, random() * 15));
  }

  chaosOn = false;
  await chaos;
  stub.reset();
  await waitFor(async () => (await engine.relay.pending()).count === 0, 20_000, 50);
  await Promise.all(relays.map((r) => r.stop()));

  // the index holds exactly the last committed state
  const docs = stub.documents();
  for (const [dockey, state] of model) {
    const doc = docs.get(meiliDocumentId('abcd1234', dockey));
    if (state.exists) {
      expect({ dockey, doc_id: doc?.doc_id, version: doc?.version }).toEqual({
        dockey,
        doc_id: String(state.docId),
        version: String(state.version),
      });
    } else {
      expect({ dockey, doc }).toEqual({ dockey, doc: undefined });
    }
  }
  expect(docs.size).toBe([...model.values()].filter((s) => s.exists).length);

  // never backwards: the versions written for one id only grow
  const last = new Map<string, { docId: string; version: string; deleted?: boolean }>();
  const backwards: string[] = [];
  for (const entry of stub.log) {
    if (entry[1] === 'deleted') {
      const prev = last.get(entry[0]);
      if (prev) last.set(entry[0], { ...prev, deleted: true });
      continue;
    }
    const [id, docId, version] = entry as [string, string, string];
    const prev = last.get(id);
    if (prev && compareVersions({ docId, version }, prev) < 0)
      backwards.push(`${id}: ${prev.version} → ${version}`);
    last.set(id, { docId, version });
  }
  expect({ seed, backwards }).toEqual({ seed, backwards: [] });
  // the chaos really happened
  expect([...struck].sort()).toEqual([...faults].sort());
  expect(kills).toBeGreaterThan(0);
  const failed = await db.pool.query(
    `SELECT count(*)::int AS n FROM search_outbox WHERE attempts > 0`,
  );
  expect(failed.rows[0].n).toBeGreaterThan(0);
}, 60_000);
