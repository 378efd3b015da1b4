import type pg from 'pg';
import { errorText, type Logger, type Metrics } from '@hub/service-kit';
import {
  noMatches,
  type DocumentChange,
  type SearchHits,
  type SearchIndex,
  type SearchQuery,
} from '../search-index';
import { recordOutboxChange, recordOutboxDrop } from './outbox/enqueue';
import { createOutboxRelay, type OutboxRelay, type RelayOptions } from './outbox/relay';
import { createMeiliGateway, type MeiliGateway } from './gateway';
import { buildSearchRequest, matchesNothing } from './mapping';

export interface MeilisearchIndexOptions {
  pool: pg.Pool;
  /** MEILI_URL */
  url: string;
  /** MEILI_API_KEY (a key with search, documents.*, indexes.*, settings.*, tasks.get) */
  apiKey?: string;
  /** MEILI_INDEX (default "documents"): one index shared by every collection */
  indexUid?: string;
  logger: Logger;
  metrics?: Metrics;
  /** pagination.maxTotalHits: numfound is exact up to this many matches (default 100000) */
  maxTotalHits?: number;
  /** ranking rules (default DEFAULT_RANKING_RULES, Meilisearch ≥ 1.36) */
  rankingRules?: string[];
  /** faceting.maxValuesPerFacet: the most categories facet=categories answers (default 10,000) */
  maxFacetValues?: number;
  /**
   * status() says searchable=false when the oldest pending change is older (default 60 s);
   * dead letters are not pending: they leave status alone (see /admin/dead-letters)
   */
  maxLagSeconds?: number;
  requestTimeoutMs?: number;
  taskTimeoutMs?: number;
  /** tuning of the outbox relay (batch size, poll interval, backoff, LISTEN) */
  relay?: Omit<RelayOptions, 'pool' | 'sink' | 'logger' | 'metrics'>;
  /**
   * NOTIFY the relays in every write transaction (default true: lowest latency). false: the
   * relays find changes by polling (set relay.pollIntervalMs, e.g. 100) — for write rates where
   * the commit-time NOTIFY lock matters.
   */
  notify?: boolean;
  /** start() also runs the relay (default true; false for an instance that only serves searches) */
  runRelay?: boolean;
}

export interface MeilisearchIndex extends SearchIndex {
  readonly engine: 'meilisearch';
  readonly gateway: MeiliGateway;
  readonly relay: OutboxRelay;
  /**
   * the index's pagination.maxTotalHits: numfound is exact up to it, so the admin API refuses
   * a collection max_documents above it
   */
  readonly maxDocumentsLimit: number;
  /** creates the index and applies its settings (idempotent; start() does it in the background) */
  ensureSettings(): Promise<void>;
  /** settings applied, every pending outbox row sent and its task done (tests, reindex) */
  settle(timeoutMs?: number): Promise<void>;
  dropCollection(tx: pg.PoolClient, collectionId: string): Promise<void>;
  /** applies the settings in the background (retrying) and starts the relay */
  start(): void;
  /** stops the relay after its current batch */
  stop(): Promise<void>;
}

/**
 * The Meilisearch engine: writes go through the transactional outbox (recordChange inserts a
 * row in the caller's transaction; the relay sends it), searches go to Meilisearch and return
 * documents.id values that the domain loads from Postgres.
 */
export function createMeilisearchIndex(opts: MeilisearchIndexOptions): MeilisearchIndex {
  const { pool, logger } = opts;
  const maxLagSeconds = opts.maxLagSeconds ?? 60;
  const maxTotalHits = opts.maxTotalHits ?? 100_000;
  const requestTimeoutMs = opts.requestTimeoutMs ?? 5_000;
  const taskTimeoutMs = opts.taskTimeoutMs ?? 30_000;
  const gateway = createMeiliGateway({
    url: opts.url,
    apiKey: opts.apiKey,
    indexUid: opts.indexUid ?? 'documents',
    requestTimeoutMs,
    taskTimeoutMs,
    maxTotalHits,
    rankingRules: opts.rankingRules,
    maxFacetValues: opts.maxFacetValues,
  });
  const relay = createOutboxRelay({
    // a claim outlives the longest call: the write request, the task, one more poll request
    claimLeaseMs: taskTimeoutMs + 2 * requestTimeoutMs + 1_000,
    ...opts.relay,
    pool,
    sink: gateway,
    logger,
    metrics: opts.metrics,
  });

  let settingsApplied = false;
  let settingsRun: Promise<void> | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let started = false;

  function ensureSettings(): Promise<void> {
    if (settingsApplied) return Promise.resolve();
    settingsRun ??= gateway
      .ensureIndex()
      .then((r) => {
        settingsApplied = true;
        logger.info(
          { index: gateway.indexUid, created: r.created, updated: r.updated },
          'Meilisearch index ready',
        );
      })
      .finally(() => {
        settingsRun = null;
      });
    return settingsRun;
  }

  function ensureSettingsInBackground(delayMs = 1000): void {
    ensureSettings().catch((err) => {
      logger.warn({ err: errorText(err) }, 'Meilisearch settings not applied yet; retrying');
      if (started)
        retryTimer = setTimeout(
          () => ensureSettingsInBackground(Math.min(delayMs * 2, 30_000)),
          delayMs,
        );
    });
  }

  return {
    engine: 'meilisearch',
    gateway,
    relay,
    maxDocumentsLimit: maxTotalHits,

    async recordChange(tx: pg.PoolClient, change: DocumentChange) {
      await recordOutboxChange(tx, change, { notify: opts.notify });
    },

    async dropCollection(tx: pg.PoolClient, collectionId: string) {
      await recordOutboxDrop(tx, collectionId);
    },

    async search(query: SearchQuery): Promise<SearchHits> {
      if (matchesNothing(query)) return noMatches(query);
      await ensureSettings();
      return gateway.search(buildSearchRequest(query));
    },

    async status(collectionId: string) {
      try {
        await gateway.health();
      } catch (err) {
        return { searchable: false, reason: `meilisearch unreachable: ${errorText(err)}` };
      }
      if (!settingsApplied) {
        try {
          await ensureSettings();
        } catch (err) {
          return { searchable: false, reason: `meilisearch index not ready: ${errorText(err)}` };
        }
      }
      const { oldestAgeSeconds } = await relay.pending(collectionId);
      if (oldestAgeSeconds !== null && oldestAgeSeconds > maxLagSeconds) {
        return {
          searchable: false,
          reason: `search index lags: oldest pending change is ${Math.round(oldestAgeSeconds)} s old (limit ${maxLagSeconds} s)`,
        };
      }
      return { searchable: true };
    },

    async ping() {
      await gateway.health();
    },

    ensureSettings,

    async settle(timeoutMs = 30_000) {
      await ensureSettings();
      await relay.drain({ timeoutMs });
    },

    start() {
      if (started) return;
      started = true;
      ensureSettingsInBackground();
      if (opts.runRelay ?? true) relay.start();
    },

    async stop() {
      started = false;
      if (retryTimer) clearTimeout(retryTimer);
      await relay.stop();
      await settingsRun?.catch(() => {});
    },
  };
}
