import type http from 'node:http';

/** The shapes the Meilisearch stub speaks and keeps: requests, documents, tasks, errors. */

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export type Doc = Record<string, unknown> & { id: string };

/** One index: its documents by id and its settings. */
export interface Index {
  docs: Map<string, Doc>;
  settings: Record<string, unknown>;
}

/** What a task's work returns when it fails (nothing when it succeeded). */
export type TaskFailure = { code: string; message: string; type?: string } | void;

export interface Task {
  uid: number;
  indexUid: string | null;
  type: string;
  status: 'enqueued' | 'processing' | 'succeeded' | 'failed' | 'canceled';
  error: { message: string; code: string; type: string; link: string } | null;
  enqueuedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  apply: () => TaskFailure;
}

export interface MeiliStub {
  url: string;
  requests: RecordedRequest[];
  /** documents of an index by id */
  documents(indexUid?: string): Map<string, Doc>;
  settings(indexUid?: string): Record<string, unknown>;
  /** every document write applied, in order: [id, version or 'deleted'] */
  history: Array<[string, string]>;
  /** the same with documents.id: [id, doc_id, version] or [id, 'deleted'] */
  log: Array<[string, string, string] | [string, 'deleted']>;
  /** the next n requests matching `match` answer `status` (default 503) */
  failRequests(n: number, status?: number, match?: (r: RecordedRequest) => boolean): void;
  /** the next n requests matching `match` never answer (client timeout) */
  hangRequests(n: number, match?: (r: RecordedRequest) => boolean): void;
  /** the next n document tasks fail (type invalid_request → rejected, internal → transient) */
  failTasks(
    n: number,
    type?: 'invalid_request' | 'internal',
    match?: (docs: Doc[]) => boolean,
  ): void;
  /** tasks take this long to process (default 0) */
  taskDelayMs: number;
  /** every request fails with a closed connection while true */
  down: boolean;
  /** runs once, after the next document task took effect and before it shows as succeeded */
  onTaskDone: ((task: { uid: number; type: string }) => Promise<void> | void) | null;
  /** canned search answer; default is the naive search */
  searchHandler: ((indexUid: string, body: Record<string, unknown>) => unknown) | null;
  pendingTasks(): number;
  reset(): void;
  close(): Promise<void>;
}

/** A route's answer: status and JSON body. */
export interface Answer {
  status: number;
  body?: unknown;
}

export const DEFAULT_SETTINGS = {
  displayedAttributes: ['*'],
  searchableAttributes: ['*'],
  filterableAttributes: [],
  sortableAttributes: [],
  rankingRules: ['words', 'typo', 'proximity', 'attribute', 'sort', 'exactness'],
  localizedAttributes: null,
  typoTolerance: { enabled: true, minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 } },
  prefixSearch: 'indexingTime',
  pagination: { maxTotalHits: 1000 },
  faceting: { maxValuesPerFacet: 100, sortFacetValuesBy: { '*': 'alpha' } },
};

export function apiError(code: string, message: string, type = 'invalid_request') {
  return { message, code, type, link: `https://docs.meilisearch.com/errors#${code}` };
}
