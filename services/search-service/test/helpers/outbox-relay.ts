import type { TestDatabase } from '@hub/testing';
import {
  createMeilisearchIndex,
  type MeilisearchIndex,
  type MeilisearchIndexOptions,
} from '../../src/index/meilisearch/meilisearch-index';
import { createOutboxRelay } from '../../src/index/meilisearch/outbox/relay';
import type { DocumentChange } from '../../src/index/search-index';
import type { MeiliStub } from '../meili-stub';
import { silentLogger, upsert, useDatabaseAndStub, waitFor, withTx } from '../outbox-fixtures';

/** What each outbox relay test starts with (useRelayTest). */
export interface RelayTest {
  db: TestDatabase;
  stub: MeiliStub;
  /** a new engine on the stub (relayTestEngine), its settings applied */
  engine: MeilisearchIndex;
}

/** An engine of the outbox relay tests: on the stub, short timeouts and backoff, `over` on top. */
export function relayTestEngine(
  db: TestDatabase,
  stub: MeiliStub,
  over: Partial<MeilisearchIndexOptions> = {},
): MeilisearchIndex {
  return createMeilisearchIndex({
    pool: db.pool,
    url: stub.url,
    apiKey: 'k',
    logger: silentLogger,
    requestTimeoutMs: 300,
    taskTimeoutMs: 600,
    relay: { baseBackoffMs: 50, maxBackoffMs: 200, pollIntervalMs: 200 },
    ...over,
  });
}

/**
 * A test file's database and Meilisearch stub. Before each test the stub is reset and emptied,
 * the outbox, applied versions and dead letters are emptied and a new engine (relayTestEngine
 * with `options`) is handed to `opened`. The current engine, which stops after each test, is
 * that one, or the one `current` names in a file whose tests may replace it (the one the test
 * left). Returns what the tests do with them, on the current engine.
 */
export function useRelayTest(
  opened: (t: RelayTest) => void,
  {
    current,
    options = {},
  }: { current?: () => MeilisearchIndex; options?: Partial<MeilisearchIndexOptions> } = {},
) {
  let db: TestDatabase;
  let stub: MeiliStub;
  let made: MeilisearchIndex;
  const currentEngine = current ?? (() => made);
  useDatabaseAndStub((opened, started) => {
    db = opened;
    stub = started;
  });
  beforeEach(async () => {
    stub.reset();
    stub.documents().clear();
    stub.history.length = 0;
    await db.pool.query(
      'TRUNCATE search_outbox, search_applied_versions, search_outbox_dead_letters',
    );
    made = relayTestEngine(db, stub, options);
    opened({ db, stub, engine: made });
    await made.ensureSettings();
  });
  afterEach(async () => {
    await currentEngine().stop();
  });

  /** One change recorded in its own transaction, as a write of the service does. */
  const recordChange = (change: DocumentChange): Promise<void> =>
    withTx(db.pool, (tx) => currentEngine().recordChange(tx, change));

  return {
    /** a new engine (relayTestEngine with useRelayTest's `options`, then `more`), not started */
    makeEngine: (more: Partial<MeilisearchIndexOptions> = {}) =>
      relayTestEngine(db, stub, { ...options, ...more }),
    /** One change recorded, then sent and confirmed. */
    recordSettled: async (change: DocumentChange): Promise<void> => {
      await recordChange(change);
      await currentEngine().settle();
    },
    /**
     * Document a (version 1) committed, and relay A's batch of it waiting on a slow Meilisearch
     * task (300 ms); relay B is a second relay, not started.
     */
    slowBatchOfA: async () => {
      await recordChange(upsert({ dockey: 'a', docId: 1, version: 1 }));
      stub.taskDelayMs = 300;
      const relay = () =>
        createOutboxRelay({ pool: db.pool, sink: currentEngine().gateway, logger: silentLogger });
      const a = relay().runOnce();
      const relayB = relay();
      await waitFor(() => stub.requests.some((q) => q.path === '/indexes/documents/documents'));
      return { relayB, a };
    },
    /** The outbox rows, oldest first. */
    outbox: async () => {
      const r = await db.pool.query(
        `SELECT id::int, op, meili_id, version::int, attempts, isolate, done_at IS NOT NULL AS done, last_error,
                next_attempt_at > clock_timestamp() AS backing_off
           FROM search_outbox ORDER BY id`,
      );
      return r.rows;
    },
  };
}
