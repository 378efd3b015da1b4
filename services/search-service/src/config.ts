import { availableParallelism } from 'node:os';
import { parseThumbnailSize, SEARCH_LIMITS } from '@hub/contracts';
import {
  ConfigReader,
  readDatabaseConnectTimeout,
  readHttpTimeouts,
  type HttpTimeouts,
} from '@hub/service-kit';

export interface SearchConfig {
  port: number;
  databaseUrl: string;
  logLevel: string;
  /** connections of the service's pool */
  databasePoolSize: number;
  /** how long a request's query waits for a connection of the pool */
  databaseConnectTimeoutMs: number;
  /** how long a client may take to send a request, and keep a connection idle */
  httpTimeouts: HttpTimeouts;
  /** Bearer token of the admin API (/admin/collections) */
  adminToken: string;
  /** public address of add, update, field update, delete and status ({base_url}) */
  baseUrl: string;
  /** whether SEARCH_BASE_URL was set; if not, /openapi.json names the request's own origin */
  baseUrlGiven: boolean;
  /** public address of search ({search_url}) */
  searchUrl: string;
  /** public address of the thumbnail image host ({thumbnail_url}) */
  thumbnailUrl: string;
  /** limits given to a new collection when the admin API does not name them */
  defaultMaxDocuments: number;
  defaultMaxApiCalls: number;
  defaultThumbnailSize: string;
  /** length of one API call limit window (fixed windows aligned to the UNIX epoch) */
  apiCallWindowSeconds: number;
  /** how often an instance adds its locally counted calls to the shared counter */
  apiCallFlushMs: number;
  /** below this many calls before the limit, every call is checked against the database */
  apiCallExactMargin: number;
  /** largest request body (form parameters), in bytes */
  maxBodyBytes: number;
  /** how long a collection (key hash, limits) is reused from memory; 0 reads it every time */
  collectionCacheMs: number;
  /** searches of one collection running at once (more wait); 0: no cap */
  maxConcurrentSearches: number;
  /** add statements of one collection in Postgres at once (adds arriving meanwhile are grouped) */
  addStatementsPerCollection: number;
  /** most adds in one add statement (1: every add on its own) */
  maxAddGroup: number;
  /** searches of one collection waiting for their share at once; one more answers 429 */
  maxQueuedSearches: number;
  /** longest wait of a search for its share, in ms; then it answers 429 */
  maxSearchWaitMs: number;
  /** Postgres engine: bytes of posting lists, deleted bitmaps and result orders kept in memory */
  indexCacheBytes: number;
  /** Postgres engine: most documents folded into one segment */
  foldBatchSize: number;
  /** Postgres engine: longest wait before pending documents are folded (if fewer than a batch) */
  foldMaxDelayMs: number;
  /** Postgres engine: whether this instance runs the folder (off: other instances fold) */
  runFolder: boolean;
  /** search and add through the raw node:http fast path (http/fast-path.ts); off: Express only */
  fastPath: boolean;
  /** Meilisearch engine: chosen when meiliUrl is set ('' = the Postgres engine) */
  meiliUrl: string;
  meiliApiKey: string | undefined;
  meiliIndex: string;
  /** search_status turns false when the oldest pending outbox row is older than this */
  meiliMaxLagSeconds: number;
  meiliMaxTotalHits: number;
  /** thumbnails: fetch originals from private/loopback addresses (tests, closed networks) */
  thumbnailAllowPrivateNetworks: boolean;
  thumbnailFetchTimeoutMs: number;
  thumbnailMaxBytes: number;
  /** thumbnail jobs processed at once by this instance */
  thumbnailConcurrency: number;
  /** thumbnail jobs one collection may have in flight at once, across all instances */
  thumbnailMaxJobsPerCollection: number;
}

/** The path part of a public address: routes are mounted under it ('' for the root). */
export function mountPath(publicUrl: string): string {
  return new URL(publicUrl).pathname.replace(/\/+$/, '');
}

/** Environment → typed config; every bad or missing setting is reported at once. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): SearchConfig {
  const r = new ConfigReader(env);
  const port = r.int('PORT', { default: 8081, min: 0, max: 65535 });
  const local = `http://127.0.0.1:${port}`;
  const baseUrl = r.url('SEARCH_BASE_URL', { default: local, protocols: ['http', 'https'] });
  const config: SearchConfig = {
    port,
    databaseUrl: r.postgresUrl('DATABASE_URL'),
    logLevel: r.oneOf(
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      'info',
    ),
    databasePoolSize: r.int('SEARCH_DB_POOL_SIZE', { default: 20, min: 2, max: 500 }),
    databaseConnectTimeoutMs: readDatabaseConnectTimeout(r),
    httpTimeouts: readHttpTimeouts(r),
    adminToken: r.secret('SEARCH_ADMIN_TOKEN'),
    baseUrl,
    baseUrlGiven: r.isSet('SEARCH_BASE_URL'),
    searchUrl: r.url('SEARCH_URL', { default: baseUrl, protocols: ['http', 'https'] }),
    thumbnailUrl: r.url('THUMBNAIL_URL', {
      default: `${baseUrl}/thumbnails`,
      protocols: ['http', 'https'],
    }),
    defaultMaxDocuments: r.int('SEARCH_DEFAULT_MAX_DOCUMENTS', {
      default: 100_000,
      min: 0,
      max: 2_000_000_000,
    }),
    defaultMaxApiCalls: r.int('SEARCH_DEFAULT_MAX_API_CALLS', {
      default: 1_000_000,
      min: 0,
      max: Number.MAX_SAFE_INTEGER,
    }),
    defaultThumbnailSize: r.string('SEARCH_DEFAULT_THUMBNAIL_SIZE', {
      default: SEARCH_LIMITS.defaultThumbnailSize,
    }),
    apiCallWindowSeconds: r.int('SEARCH_API_CALL_WINDOW_SECONDS', {
      default: 86_400,
      min: 1,
      max: 31 * 86_400,
    }),
    apiCallFlushMs: r.int('SEARCH_API_CALL_FLUSH_MS', { default: 250, min: 10, max: 60_000 }),
    apiCallExactMargin: r.int('SEARCH_API_CALL_EXACT_MARGIN', { default: 50, min: 0, max: 1e6 }),
    maxBodyBytes: r.int('SEARCH_MAX_BODY_BYTES', {
      default: 1024 * 1024,
      min: 4096,
      max: 64 * 1024 * 1024,
    }),
    collectionCacheMs: r.int('SEARCH_COLLECTION_CACHE_MS', { default: 1000, min: 0, max: 60_000 }),
    maxConcurrentSearches: r.int('SEARCH_MAX_CONCURRENT_SEARCHES', {
      default: Math.max(2, availableParallelism()),
      min: 0,
      max: 10_000,
    }),
    addStatementsPerCollection: r.int('SEARCH_ADD_STATEMENTS_PER_COLLECTION', {
      default: 2,
      min: 1,
      max: 1_000,
    }),
    maxAddGroup: r.int('SEARCH_ADD_GROUP_MAX', { default: 16, min: 1, max: 256 }),
    maxQueuedSearches: r.int('SEARCH_MAX_QUEUED_SEARCHES', { default: 64, min: 0, max: 100_000 }),
    maxSearchWaitMs: r.int('SEARCH_MAX_SEARCH_WAIT_MS', {
      default: 10_000,
      min: 1,
      max: 600_000,
    }),
    indexCacheBytes:
      r.int('SEARCH_INDEX_CACHE_MB', { default: 256, min: 8, max: 65_536 }) * 2 ** 20,
    foldBatchSize: r.int('SEARCH_FOLD_BATCH_SIZE', { default: 2000, min: 1, max: 50_000 }),
    foldMaxDelayMs: r.int('SEARCH_FOLD_MAX_DELAY_MS', { default: 1000, min: 0, max: 600_000 }),
    runFolder: r.bool('SEARCH_RUN_FOLDER', true),
    fastPath: r.bool('SEARCH_FAST_PATH', true),
    meiliUrl: r.url('MEILI_URL', { required: false, protocols: ['http', 'https'] }),
    meiliApiKey: r.optionalSecret('MEILI_API_KEY'),
    meiliIndex: r.string('MEILI_INDEX', { default: 'documents' }),
    meiliMaxLagSeconds: r.int('MEILI_MAX_LAG_SECONDS', { default: 60, min: 1, max: 86_400 }),
    meiliMaxTotalHits: r.int('MEILI_MAX_TOTAL_HITS', {
      default: 100_000,
      min: 1_100,
      max: 10_000_000,
    }),
    thumbnailAllowPrivateNetworks: r.bool('THUMBNAIL_ALLOW_PRIVATE_NETWORKS', false),
    thumbnailFetchTimeoutMs: r.int('THUMBNAIL_FETCH_TIMEOUT_MS', {
      default: 10_000,
      min: 100,
      max: 120_000,
    }),
    thumbnailMaxBytes: r.int('THUMBNAIL_MAX_BYTES', {
      default: 10 * 1024 * 1024,
      min: 1024,
      max: 100 * 1024 * 1024,
    }),
    thumbnailConcurrency: r.int('THUMBNAIL_CONCURRENCY', { default: 2, min: 1, max: 64 }),
    thumbnailMaxJobsPerCollection: r.int('THUMBNAIL_MAX_JOBS_PER_COLLECTION', {
      default: 1,
      min: 1,
      max: 1000,
    }),
  };
  if (config.adminToken && config.adminToken.length < 16) {
    r.problem('SEARCH_ADMIN_TOKEN must be at least 16 characters');
  }
  const size = parseThumbnailSize(config.defaultThumbnailSize);
  if (!size) {
    r.problem(
      `SEARCH_DEFAULT_THUMBNAIL_SIZE must look like 130X130 (got "${config.defaultThumbnailSize}")`,
    );
  } else {
    config.defaultThumbnailSize = `${size.width}X${size.height}`;
  }
  r.done('search-service');
  return config;
}
