import type * as MeiliModule from 'meilisearch' with { 'resolution-mode': 'import' };
import { errorText } from '@hub/service-kit';
import type { SearchHits } from '../search-index';
import {
  indexSettings,
  readSearchResponse,
  settingsToUpdate,
  filterString,
  type MeiliDocument,
  type MeiliSearchRequest,
} from './mapping';

/**
 * The few Meilisearch calls the engine makes, through the official client (`meilisearch`,
 * ESM-only: loaded with require(), which Node ≥ 20.19 supports for ES modules and jest
 * transforms). Every write waits for its task; failures are IndexWriteErrors that say whether
 * a retry can help.
 */

type MeiliClient = InstanceType<typeof MeiliModule.Meilisearch>;
type MeiliTask = Awaited<ReturnType<ReturnType<MeiliClient['createIndex']>['waitTask']>>;

let meiliModule: typeof MeiliModule | undefined;
function loadMeilisearch(): typeof MeiliModule {
  meiliModule ??= require('meilisearch') as typeof MeiliModule;
  return meiliModule;
}

/**
 * `transient`: network, timeout, 5xx, 429, auth or an internal task error — retry the same batch.
 * `rejected`: Meilisearch refused the content (4xx or a failed task) — retry the rows one by one
 * so that one bad document cannot hold back the others.
 */
export class IndexWriteError extends Error {
  constructor(
    message: string,
    readonly kind: 'transient' | 'rejected',
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'IndexWriteError';
  }
}

/** What the outbox relay needs from the index. */
export interface IndexSink {
  upsert(docs: MeiliDocument[]): Promise<void>;
  remove(ids: string[]): Promise<void>;
  purgeCollection(collectionId: string): Promise<void>;
}

export interface MeiliGatewayOptions {
  url: string;
  apiKey?: string;
  indexUid: string;
  /** per HTTP request (default 5000 ms) */
  requestTimeoutMs?: number;
  /** for a task to finish (default 30000 ms) */
  taskTimeoutMs?: number;
  /** task polling interval (default 10 ms: tasks of a few documents take milliseconds) */
  taskPollMs?: number;
  maxTotalHits?: number;
  rankingRules?: string[];
}

export interface MeiliGateway extends IndexSink {
  readonly indexUid: string;
  health(): Promise<void>;
  /** creates the index (primary key `id`) if missing and applies settings that differ */
  ensureIndex(): Promise<{ created: boolean; updated: string[] }>;
  search(request: MeiliSearchRequest): Promise<SearchHits>;
  /** documents of one collection (id, dockey, doc_id, version), for reindex */
  listDocuments(
    collectionId: string,
    offset: number,
    limit: number,
  ): Promise<{
    total: number;
    results: Array<Pick<MeiliDocument, 'id' | 'dockey' | 'doc_id' | 'version'>>;
  }>;
  /** deletes the whole index (tests and `reindex --recreate`) */
  deleteIndex(): Promise<void>;
}

/** Any client error → IndexWriteError with the right kind. */
export function classifyError(err: unknown): IndexWriteError {
  if (err instanceof IndexWriteError) return err;
  const m = loadMeilisearch();
  if (err instanceof m.MeilisearchApiError) {
    const status = err.response.status;
    const transient =
      status >= 500 || status === 429 || status === 408 || status === 401 || status === 403;
    return new IndexWriteError(
      `Meilisearch answered ${status}: ${err.message}`,
      transient ? 'transient' : 'rejected',
      {
        cause: err,
      },
    );
  }
  // MeilisearchRequestError (network, request timeout), MeilisearchTaskTimeOutError, others
  return new IndexWriteError(`Meilisearch unreachable: ${errorText(err)}`, 'transient', {
    cause: err,
  });
}

function checkTask(task: MeiliTask, what: string, okCodes: string[] = []): void {
  if (task.status === 'succeeded') return;
  const code = task.error?.code ?? '';
  if (task.status === 'failed' && okCodes.includes(code)) return;
  const type = task.error?.type ?? '';
  const transient = task.status === 'canceled' || type === 'internal' || type === 'system';
  throw new IndexWriteError(
    `Meilisearch task ${task.uid} (${what}) ${task.status}: ${code} ${task.error?.message ?? ''}`.trim(),
    transient ? 'transient' : 'rejected',
  );
}

export function createMeiliGateway(opts: MeiliGatewayOptions): MeiliGateway {
  const { Meilisearch } = loadMeilisearch();
  const taskTimeout = opts.taskTimeoutMs ?? 30_000;
  const client = new Meilisearch({
    host: opts.url,
    apiKey: opts.apiKey,
    timeout: opts.requestTimeoutMs ?? 5_000,
    defaultWaitOptions: { timeout: taskTimeout, interval: opts.taskPollMs ?? 10 },
  });
  const index = client.index<MeiliDocument>(opts.indexUid);
  const settings = indexSettings(opts.maxTotalHits ?? 100_000, opts.rankingRules);

  async function write(
    what: string,
    run: () => Promise<MeiliTask>,
    okCodes?: string[],
  ): Promise<void> {
    let task: MeiliTask;
    try {
      task = await run();
    } catch (err) {
      throw classifyError(err);
    }
    checkTask(task, what, okCodes);
  }

  return {
    indexUid: opts.indexUid,

    async health() {
      await client.health();
    },

    async ensureIndex() {
      let created = false;
      await write(
        'create index',
        async () => {
          const task = await client.createIndex(opts.indexUid, { primaryKey: 'id' }).waitTask();
          created = task.status === 'succeeded';
          return task;
        },
        ['index_already_exists'],
      );
      let current: Record<string, unknown>;
      try {
        current = await index.getSettings();
      } catch (err) {
        throw classifyError(err);
      }
      const update = settingsToUpdate(current, settings);
      if (update) await write('update settings', () => index.updateSettings(update).waitTask());
      return { created, updated: update ? Object.keys(update) : [] };
    },

    async upsert(docs) {
      if (docs.length === 0) return;
      await write('add or replace documents', () =>
        index.addDocuments(docs, { primaryKey: 'id' }).waitTask(),
      );
    },

    async remove(ids) {
      if (ids.length === 0) return;
      // nothing to delete in an index that does not exist yet
      await write('delete documents', () => index.deleteDocuments(ids).waitTask(), [
        'index_not_found',
      ]);
    },

    async purgeCollection(collectionId) {
      await write(
        'delete collection documents',
        () =>
          index
            .deleteDocuments({ filter: `collection_id = ${filterString(collectionId)}` })
            .waitTask(),
        ['index_not_found'],
      );
    },

    async search(request) {
      const response = await index.search(request.q, request.params);
      return readSearchResponse(
        request,
        response as unknown as { hits: Array<Record<string, unknown>>; totalHits?: number },
      );
    },

    async listDocuments(collectionId, offset, limit) {
      const page = await index.getDocuments({
        filter: `collection_id = ${filterString(collectionId)}`,
        fields: ['id', 'dockey', 'doc_id', 'version'],
        offset,
        limit,
      });
      return { total: page.total, results: page.results };
    },

    async deleteIndex() {
      await write('delete index', () => client.deleteIndex(opts.indexUid).waitTask(), [
        'index_not_found',
      ]);
    },
  };
}
