import { createMetrics } from '@hub/service-kit';
import type { TestDatabase } from '@hub/testing';
import type { MeilisearchIndex } from '../src/index/meilisearch/meilisearch-index';
import { meiliDocumentId } from '../src/index/meilisearch/mapping';
import { useRelayTest } from './helpers/outbox-relay';
import type { MeiliStub } from './meili-stub';
import { upsert, waitFor, withTx } from './outbox-fixtures';

/** The outbox relay's status, metrics and visibility latency. */

let db: TestDatabase;
let stub: MeiliStub;
let engine: MeilisearchIndex;
const { makeEngine } = useRelayTest((t) => ({ db, stub, engine } = t));
const id = (dockey: string) => meiliDocumentId('abcd1234', dockey);

describe('status and metrics', () => {
  test('When Meilisearch is unreachable, status says not searchable with the reason', async () => {
    stub.down = true;
    const s = await engine.status('abcd1234');
    expect(s.searchable).toBe(false);
    expect(s.reason).toMatch(/meilisearch unreachable/);
    await expect(engine.ping()).rejects.toThrow();
    stub.down = false;
    await expect(engine.status('abcd1234')).resolves.toEqual({ searchable: true });
  });

  test('When the oldest pending change is older than the limit, status says not searchable', async () => {
    const lagging = makeEngine({ maxLagSeconds: 60 });
    await withTx(db.pool, (tx) =>
      lagging.recordChange(tx, upsert({ dockey: 'a', docId: 1, version: 1 })),
    );
    await expect(lagging.status('abcd1234')).resolves.toEqual({ searchable: true });
    await db.pool.query(`UPDATE search_outbox SET created_at = now() - interval '61 seconds'`);
    const s = await lagging.status('abcd1234');
    expect(s).toMatchObject({ searchable: false });
    expect(s.reason).toMatch(/lags/);
    // other collections are not affected
    await expect(lagging.status('other123')).resolves.toEqual({ searchable: true });
  });

  test('When a metrics registry is passed, outbox pending count and lag are exposed', async () => {
    const metrics = createMetrics('search-service');
    const withMetrics = makeEngine({ metrics });
    await withTx(db.pool, (tx) =>
      withMetrics.recordChange(tx, upsert({ dockey: 'a', docId: 1, version: 1 })),
    );
    await db.pool.query(`UPDATE search_outbox SET created_at = now() - interval '5 seconds'`);
    let text = await metrics.registry.metrics();
    expect(text).toMatch(/search_outbox_pending\{service="search-service"\} 1/);
    const lag = Number(/search_outbox_lag_seconds\{[^}]*\} ([0-9.]+)/.exec(text)![1]);
    expect(lag).toBeGreaterThanOrEqual(5);
    await withMetrics.settle();
    text = await metrics.registry.metrics();
    expect(text).toMatch(/search_outbox_pending\{service="search-service"\} 0/);
    expect(text).toMatch(/search_outbox_lag_seconds\{service="search-service"\} 0/);
    expect(text).toMatch(/search_outbox_applied_total\{service="search-service"\} 1/);
    expect(text).toMatch(/search_outbox_visibility_seconds_count\{service="search-service"\} 1/);
    // a second engine on the same registry reuses the metrics
    expect(() => makeEngine({ metrics })).not.toThrow();
  });
});

describe('visibility latency', () => {
  test('When NOTIFY is turned off, the relay still finds the change by polling', async () => {
    const quiet = makeEngine({ notify: false, relay: { pollIntervalMs: 50 } });
    quiet.start();
    await withTx(db.pool, (tx) =>
      quiet.recordChange(tx, upsert({ dockey: 'quiet', docId: 500, version: 1 })),
    );
    const ms = await waitFor(() => stub.documents().has(id('quiet')), 2000, 2);
    await quiet.stop();
    expect(ms).toBeLessThan(1000);
  });

  test('When the relay is running, a committed change is in the index well within 1 s (NOTIFY wake-up)', async () => {
    // the poll fallback is set far away so that only NOTIFY can explain a fast arrival
    const live = makeEngine({ relay: { pollIntervalMs: 10_000 } });
    live.start();
    await live.ensureSettings();
    await new Promise((r) => setTimeout(r, 200)); // LISTEN established
    stub.taskDelayMs = 5; // a small Meilisearch indexing time
    const samples: number[] = [];
    for (let i = 0; i < 30; i++) {
      await withTx(db.pool, (tx) =>
        live.recordChange(tx, upsert({ dockey: `lat${i}`, docId: 100 + i, version: 1 })),
      );
      samples.push(await waitFor(() => stub.documents().has(id(`lat${i}`)), 1000, 1));
    }
    await live.stop();
    samples.sort((a, b) => a - b);
    const p50 = samples[Math.floor(samples.length / 2)]!;
    const max = samples.at(-1)!;
    console.log(
      `outbox visibility (commit → stub applied, stub task time 5 ms): p50 ${p50} ms, max ${max} ms`,
    );
    expect(max).toBeLessThan(1000);
  });
});
