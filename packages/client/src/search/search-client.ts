import { SEARCH_RETRY_AFTER_SECONDS, type SearchOperation } from '../contracts.js';
import { TooManyRequestsError, UnexpectedResponseError, type HubClientError } from '../errors.js';
import { stringifyJson } from '../json/stringify-json.js';
import {
  globalFetch,
  joinUrl,
  type FetchInit,
  type FetchLike,
  type FetchResponse,
} from '../http.js';
import { searchErrorOf } from './search-errors.js';
import { parseSearchResult } from './search-json.js';
import type {
  AddOptions,
  DeleteOptions,
  SearchDoc,
  SearchOptions,
  SearchResult,
  SearchRetryOptions,
  SearchStatus,
  UpdateFieldOptions,
  UpdateOptions,
} from './search-types.js';

export interface SearchClientOptions {
  /** `{base_url}`: add, update, field update, delete, status (e.g. `http://127.0.0.1:8081`) */
  readonly baseUrl: string;
  /** `{search_url}`: search; default baseUrl */
  readonly searchUrl?: string;
  /** the collection id (8 letters or digits) */
  readonly cid: string;
  /** the collection's API key */
  readonly apikey: string;
  readonly fetch?: FetchLike;
  /** retry a 429 too many requests after its Retry-After; default: no retries */
  readonly retry?: SearchRetryOptions;
}

type Params = Record<string, string | undefined>;
type Operation = Exclude<SearchOperation, 'common'>;

const FORM = 'application/x-www-form-urlencoded;charset=UTF-8';

/**
 * One collection of the search-service. Parameters go form-encoded (UTF-8): in the body for
 * POST, PUT and DELETE, in the query string for GET. Errors throw SearchError (a spec row),
 * SearchHttpError (a row the spec has not; the 429 a TooManyRequestsError, retried only with
 * the `retry` option) or UnexpectedResponseError.
 */
export class SearchClient {
  readonly #base: string;
  readonly #search: string;
  readonly #apikey: string;
  readonly #fetch: FetchLike;
  readonly #retry: Required<SearchRetryOptions> | undefined;

  constructor(options: SearchClientOptions) {
    const cid = encodeURIComponent(options.cid);
    this.#base = joinUrl(options.baseUrl, `/v2/${cid}`);
    this.#search = joinUrl(options.searchUrl ?? options.baseUrl, `/v2/${cid}`);
    this.#apikey = options.apikey;
    this.#fetch = options.fetch ?? globalFetch;
    this.#retry = options.retry && retryOptions(options.retry);
  }

  /** Adds a document (406 document is already exists for a dockey in use). */
  async add({ dockey, doc, force }: AddOptions): Promise<void> {
    const params = {
      dockey,
      doc: docText(doc),
      force: force === undefined ? undefined : force ? '1' : '0',
    };
    await this.#ok('add', 'POST', `${this.#base}/docs`, params);
  }

  /** Replaces a document: fields left out of `doc` are removed. */
  async update({ dockey, doc }: UpdateOptions): Promise<void> {
    await this.#ok('update', 'PUT', `${this.#base}/docs`, { dockey, doc: docText(doc) });
  }

  /** Sets one score field. */
  async updateField({ dockey, fieldname, fieldvalue }: UpdateFieldOptions): Promise<void> {
    const params = { dockey, fieldname, fieldvalue: scoreText(fieldvalue) };
    await this.#ok('fieldUpdate', 'PUT', `${this.#base}/docs/fields`, params);
  }

  async delete({ dockey }: DeleteOptions): Promise<void> {
    await this.#ok('delete', 'DELETE', `${this.#base}/docs`, { dockey });
  }

  /** Searches (JSON); `score_*` values come back as bigint. */
  async search(options: SearchOptions): Promise<SearchResult> {
    const params: Params = {
      q: options.q,
      start: intText(options.start),
      len: intText(options.len),
      ca: options.ca?.join(','),
      ex_ca: options.ex_ca?.join(','),
      sort: intText(options.sort),
      startdate: unixText(options.startdate),
      enddate: unixText(options.enddate),
      hl: options.hl === undefined ? undefined : options.hl ? '1' : '0',
      hl_pre: options.hl ? options.hl_pre : undefined,
      hl_post: options.hl ? options.hl_post : undefined,
      facet: options.facet,
      prefix: options.prefix === undefined ? undefined : options.prefix ? '1' : '0',
    };
    const text = await this.#json('search', `${this.#search}/search/json`, params);
    return parseSearchResult(text);
  }

  /** Whether the collection is searchable, and its document count. */
  async status(): Promise<SearchStatus> {
    return JSON.parse(await this.#json('status', `${this.#base}/status/json`, {})) as SearchStatus;
  }

  async #ok(operation: Operation, method: string, url: string, params: Params): Promise<void> {
    await this.#send(operation, url, {
      method,
      headers: { 'Content-Type': FORM },
      body: form({ apikey: this.#apikey, ...params }),
    });
  }

  async #json(operation: Operation, url: string, params: Params): Promise<string> {
    const query = form({ apikey: this.#apikey, ...params });
    const { res, text } = await this.#send(operation, `${url}?${query}`, {
      method: 'GET',
      headers: { Accept: 'application/json' },
    });
    if (!/json/i.test(res.headers.get('Content-Type') ?? '')) {
      throw new UnexpectedResponseError(
        'search-service answered a body that is not JSON',
        res.status,
        text,
      );
    }
    return text;
  }

  /** The 200 answer and its text; any other answer throws its error (after the retries). */
  async #send(
    operation: Operation,
    url: string,
    init: FetchInit,
  ): Promise<{ res: FetchResponse; text: string }> {
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      const res = await this.#fetch(url, init);
      const text = await res.text();
      if (res.status === 200) return { res, text };
      const error = searchErrorOf(operation, res.status, text, res.headers.get('Retry-After'));
      const wait = this.#retryWait(error, attempt, waited);
      if (wait === undefined) throw error;
      await this.#retry!.sleep(wait);
      waited += wait;
    }
  }

  /** How long to wait before attempt `attempt + 1`, or undefined when there is none. */
  #retryWait(error: HubClientError, attempt: number, waited: number): number | undefined {
    const retry = this.#retry;
    if (!retry || !(error instanceof TooManyRequestsError) || attempt >= retry.maxAttempts) {
      return undefined;
    }
    const wait = (error.retryAfterSeconds ?? SEARCH_RETRY_AFTER_SECONDS) * 1000;
    return waited + wait <= retry.maxWaitMs ? wait : undefined;
  }
}

function retryOptions(retry: SearchRetryOptions): Required<SearchRetryOptions> {
  const { maxAttempts, maxWaitMs } = retry;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new RangeError(`retry.maxAttempts must be an integer of at least 1, not ${maxAttempts}`);
  }
  if (!(maxWaitMs >= 0)) {
    throw new RangeError(`retry.maxWaitMs must be 0 or more, not ${maxWaitMs}`);
  }
  return { maxAttempts, maxWaitMs, sleep: retry.sleep ?? sleep };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** application/x-www-form-urlencoded (UTF-8, space as +); undefined parameters left out. */
export function form(params: Params): string {
  const out = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) out.append(name, value);
  }
  return out.toString();
}

function docText(doc: SearchDoc | string): string {
  return typeof doc === 'string' ? doc : stringifyJson(doc);
}

function scoreText(value: number | bigint): string {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    throw new RangeError(`${value} is not a safe integer: give an int64 as bigint`);
  }
  return value.toString();
}

function intText(value: number | undefined): string | undefined {
  return value === undefined ? undefined : String(value);
}

function unixText(value: number | Date | undefined): string | undefined {
  if (value === undefined) return undefined;
  return String(value instanceof Date ? Math.floor(value.getTime() / 1000) : value);
}
