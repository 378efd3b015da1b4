import type pg from 'pg';
import { createLogger, gaugeOf, type Logger, type Metrics } from '@hub/service-kit';
import type {
  AddedDocument,
  AddedDocumentRows,
  DocumentChange,
  SearchIndex,
} from '../search-index';
import { searchBitmaps } from './read/bitmap-search';
import { createIndexFolder, type FoldSettings, type IndexFolder } from './fold/folder';
import { folderMetrics, type FolderObserver } from './fold/folder-metrics';
import { createFolderSupervisor, type FolderSupervisor } from './fold/folder-supervisor';
import { createFolderThread, folderThreadAvailable } from './fold/folder-thread';
import { createIndexCache } from './read/index-cache';
import { createReanalysis, type Reanalysis } from './write/reanalyse';
import {
  dropIndex,
  holdIndex,
  insertPending,
  pendingFromAdded,
  unindex,
} from './write/change-store';
import { pendingTerms } from './write/pending-terms';
import { createRememberedPages } from './read/remembered-pages';
import { createSnapshotReader } from './read/snapshot-reader';
import { createIndexWarmer } from './read/index-warmer';

export interface PostgresIndexOptions {
  logger?: Logger;
  metrics?: Metrics;
  /** bytes of posting lists, deleted bitmaps and views kept in memory; default 256 MiB */
  cacheBytes?: number;
  /** documents per fold; default 2,000 */
  foldBatchSize?: number;
  /** the folder's pause when idle; default 100 ms */
  foldIdleMs?: number;
  /** the folder waits for this many pending documents of a collection ... (default 1,000) */
  foldMinBatch?: number;
  /** ... or this long (default 1,000 ms) */
  foldMaxDelayMs?: number;
  /** ... or until they have not grown for this long (default QUIET_MS of folder.ts) */
  foldQuietMs?: number;
  /** false: start() runs neither the folder nor the re-analysis (tests drive them) */
  autoFold?: boolean;
  /** merged segments of at most this many documents stay packed (tests lower it) */
  packedMaxDocs?: number;
  /** given (and running compiled): the folder runs in its own thread with its own connections */
  databaseUrl?: string;
  logLevel?: string;
  /** the folder thread's entry file (tests: a loader of the sources, so that ts tests run it too) */
  folderThreadEntry?: string;
  /** the supervisor's first delay before restarting a dead folder; default 1 s */
  folderRestartMs?: number;
}

/**
 * The Postgres engine: per-collection bitmaps (see docs/postgres-engine.md). A change writes the
 * document's terms to search_pending in the document's own transaction; a search reads one
 * snapshot (segments, deleted versions, tombstones and the matching pending tail), takes the
 * segments' posting lists from the cache (or Postgres), and answers with popcounts and a walk
 * of the collection's result order that stops when the page is full (bitmap-search.ts).
 */
export interface PostgresSearchIndex extends SearchIndex {
  readonly engine: 'postgres';
  /** folds and merges on this thread (tests and the bench call folder.round()) */
  readonly folder: IndexFolder;
  /** re-analyses stored documents made by another analyser version (start() runs it) */
  readonly reanalysis: Reanalysis;
  /** keeps the folder running between start() and stop(), in its thread or on this one */
  readonly supervisor: FolderSupervisor;
  addedDocumentSql(added: AddedDocument): AddedDocumentRows[];
  holdCollection(tx: pg.PoolClient, collectionId: string): Promise<void>;
  dropCollection(tx: pg.PoolClient, collectionId: string): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}

export function createPostgresIndex(
  pool: pg.Pool,
  opts: PostgresIndexOptions = {},
): PostgresSearchIndex {
  const autoFold = opts.autoFold ?? true;
  const logger = opts.logger ?? createLogger('search-service', 'silent');
  const observer = folderMetrics(opts.metrics, pool);
  const cache = createIndexCache(opts.cacheBytes ?? 256 * 2 ** 20);
  const reader = createSnapshotReader(pool, cache);
  const pages = createRememberedPages();
  const warmer = createIndexWarmer(reader, logger);
  /** the metrics' observer, and what searches read first kept warm (index-warmer.ts) */
  const foldObserver: FolderObserver = {
    folded(n, seconds, collectionId) {
      observer?.folded(n, seconds, collectionId);
      warmer.changed(collectionId);
    },
    merged(seconds, collectionId) {
      observer?.merged(seconds, collectionId);
      warmer.changed(collectionId);
    },
  };
  /** how the folder folds and merges, on this thread or in its own (the same settings) */
  const folding: FoldSettings = {
    batchSize: opts.foldBatchSize,
    idleMs: opts.foldIdleMs,
    minBatch: opts.foldMinBatch,
    maxDelayMs: opts.foldMaxDelayMs,
    quietMs: opts.foldQuietMs,
    packedMaxDocs: opts.packedMaxDocs,
  };
  const folder = createIndexFolder({ pool, logger, observer: foldObserver, ...folding });
  const reanalysis = createReanalysis({ pool, logger });
  const { databaseUrl } = opts;
  const threaded = databaseUrl && (opts.folderThreadEntry || folderThreadAvailable());
  const supervisor = createFolderSupervisor({
    logger,
    observer,
    baseMs: opts.folderRestartMs,
    launch: () =>
      threaded
        ? createFolderThread(
            { databaseUrl, logLevel: opts.logLevel ?? 'info', ...folding },
            foldObserver,
            opts.folderThreadEntry,
          )
        : { ended: folder.run(), stop: () => folder.stop() },
  });
  observer?.running(false);
  if (opts.metrics) {
    gaugeOf(opts.metrics, {
      name: 'search_index_cache_bytes',
      help: 'Bytes held by the bitmap index cache (posting lists, deleted bitmaps, views)',
      collect() {
        this.set(cache.bytes);
      },
    });
  }

  return {
    engine: 'postgres',
    folder,
    reanalysis,
    supervisor,

    async recordChange(tx: pg.PoolClient, change: DocumentChange): Promise<void> {
      // documents.version 1 is a document added just now (a re-add gets a new id): nothing to unindex
      if (change.version !== '1' || change.op === 'delete')
        await unindex(tx, change.collectionId, change.docId);
      if (change.op === 'delete' || !change.doc) return;
      await insertPending(tx, change.docId, pendingTerms(change.collectionId, change.doc));
    },

    /** A new document's pending row, inside the add's single statement. */
    addedDocumentSql(added) {
      const terms = pendingTerms(added.collectionId, added.doc);
      return [(param, added) => pendingFromAdded(param, added, terms)];
    },

    /** Its folds, merges and re-analysis batches end first: the folder never waits on the delete. */
    async holdCollection(tx, collectionId) {
      await holdIndex(tx, collectionId);
    },

    async dropCollection(tx, collectionId) {
      await dropIndex(tx, collectionId);
    },

    search: (query) => searchBitmaps(reader, query, pages),

    /** Every committed document is searchable at once (the pending tail): always searchable. */
    async status() {
      return { searchable: true };
    },

    async ping() {
      await pool.query('SELECT 1');
    },

    start() {
      if (!autoFold) return;
      reanalysis.start();
      supervisor.start();
    },

    async stop() {
      await reanalysis.stop();
      await supervisor.stop();
      await folder.stop();
      await warmer.stop();
    },
  };
}
