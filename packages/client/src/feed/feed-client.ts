import { FEED_DEFAULT_VENDOR, feedMediaType, type FeedFormat } from '../contracts.js';
import { UnexpectedResponseError } from '../errors.js';
import {
  globalFetch,
  joinUrl,
  resolveToken,
  type FetchLike,
  type FetchResponse,
  type TokenSource,
} from '../http.js';
import { feedErrorOf } from './feed-errors.js';
import type {
  FeedBody,
  FeedItemInput,
  FeedNotModified,
  FeedRead,
  FeedReadOptions,
  PublishedItem,
  PublishResult,
} from './feed-types.js';

export interface FeedClientOptions {
  /** the feed-service's address, e.g. `http://127.0.0.1:8080` */
  readonly baseUrl: string;
  /** a JWT (scope `hub:write` to publish), or a function giving the current one */
  readonly token: TokenSource;
  /** the vendor token of the media types (the service's FEED_VENDOR), default `vendor` */
  readonly vendor?: string;
  readonly fetch?: FetchLike;
}

interface Remembered {
  readonly etag: string;
  readonly lastModified: string | undefined;
  readonly contentType: string;
  readonly text: string;
  readonly feed: unknown;
}

/** The feed-service: reads with ETag revalidation, publish, update, delete. */
export class FeedClient {
  readonly #baseUrl: string;
  readonly #token: TokenSource;
  readonly #vendor: string;
  readonly #fetch: FetchLike;
  /** the last 200 of each feed and format that had an ETag */
  readonly #remembered = new Map<string, Remembered>();

  constructor(options: FeedClientOptions) {
    this.#baseUrl = options.baseUrl;
    this.#token = options.token;
    this.#vendor = options.vendor ?? FEED_DEFAULT_VENDOR;
    this.#fetch = options.fetch ?? globalFetch;
  }

  /**
   * GET the feed. The client remembers each feed's last representation with its ETag and
   * sends it as `If-None-Match`; on 304 it answers the remembered representation.
   */
  read<F extends FeedFormat = 'json'>(
    options?: FeedReadOptions<F> & { readonly etag?: undefined },
  ): Promise<FeedRead<F>>;
  read<F extends FeedFormat = 'json'>(
    options: FeedReadOptions<F>,
  ): Promise<FeedRead<F> | FeedNotModified>;
  async read<F extends FeedFormat = 'json'>(
    options: FeedReadOptions<F> = {},
  ): Promise<FeedRead<F> | FeedNotModified> {
    const format: FeedFormat = options.format ?? 'json';
    const path =
      options.category === undefined
        ? '/hub/contents'
        : `/hub/categories/${encodeURIComponent(options.category)}/contents`;
    const key = `${format} ${path}`;
    const remembered = this.#remembered.get(key);
    const etag = options.etag ?? remembered?.etag;
    const headers = await this.#headers(feedMediaType(this.#vendor, format));
    if (etag !== undefined) headers['If-None-Match'] = etag;
    const res = await this.#fetch(joinUrl(this.#baseUrl, path), { method: 'GET', headers });
    if (res.status === 304) {
      if (remembered !== undefined && remembered.etag === etag) {
        return {
          ...remembered,
          status: 304,
          notModified: true,
          feed: remembered.feed as FeedBody<F>,
        };
      }
      return { status: 304, notModified: true, etag: etag ?? '', feed: undefined };
    }
    const text = await res.text();
    if (res.status !== 200) throw feedErrorOf(res.status, text, res.headers.get('Location'));
    const representation = {
      etag: res.headers.get('ETag') ?? undefined,
      lastModified: res.headers.get('Last-Modified') ?? undefined,
      contentType: res.headers.get('Content-Type') ?? '',
      text,
      feed: (format === 'json' ? JSON.parse(text) : text) as FeedBody<F>,
    };
    if (representation.etag !== undefined) {
      this.#remembered.set(key, { ...representation, etag: representation.etag });
    } else {
      this.#remembered.delete(key);
    }
    return { ...representation, status: 200, notModified: false };
  }

  /**
   * POST an item. 201 when stored; 200 when exactly this item is already stored (so a POST
   * may be retried after a timeout); a link taken by an item with other content throws
   * FeedLinkConflictError (409) with that item's `location`.
   */
  async publish(item: FeedItemInput): Promise<PublishResult> {
    const res = await this.#write('POST', '/hub/contents', item);
    const published = await this.#item(res, [201, 200]);
    return {
      status: res.status as 201 | 200,
      created: res.status === 201,
      item: published,
      location:
        res.headers.get('Location') ?? joinUrl(this.#baseUrl, `/hub/contents/${published.id}`),
    };
  }

  /** PUT: replaces the item (omitted optional fields go back to their defaults). */
  async update(id: string, item: FeedItemInput): Promise<PublishedItem> {
    const res = await this.#write('PUT', `/hub/contents/${encodeURIComponent(id)}`, item);
    return this.#item(res, [200]);
  }

  /** DELETE: 204, or FeedError 404 for an unknown id. */
  async delete(id: string): Promise<void> {
    const res = await this.#write('DELETE', `/hub/contents/${encodeURIComponent(id)}`);
    const text = await res.text();
    if (res.status !== 204) throw feedErrorOf(res.status, text, res.headers.get('Location'));
  }

  async #headers(accept: string): Promise<Record<string, string>> {
    return { Authorization: `Bearer ${await resolveToken(this.#token)}`, Accept: accept };
  }

  async #write(method: string, path: string, item?: FeedItemInput): Promise<FetchResponse> {
    const headers = await this.#headers(feedMediaType(this.#vendor, 'json'));
    if (item === undefined) return this.#fetch(joinUrl(this.#baseUrl, path), { method, headers });
    headers['Content-Type'] = 'application/json;charset=utf-8';
    const body = JSON.stringify(itemBody(item));
    return this.#fetch(joinUrl(this.#baseUrl, path), { method, headers, body });
  }

  async #item(res: FetchResponse, ok: readonly number[]): Promise<PublishedItem> {
    const text = await res.text();
    if (!ok.includes(res.status)) throw feedErrorOf(res.status, text, res.headers.get('Location'));
    try {
      return JSON.parse(text) as PublishedItem;
    } catch {
      throw new UnexpectedResponseError(
        'feed-service answered a body that is not JSON',
        res.status,
        text,
      );
    }
  }
}

/** The JSON body of an item: a Date pubDate as RFC 822 in GMT. */
function itemBody(item: FeedItemInput): Record<string, unknown> {
  const { pubDate } = item;
  return pubDate instanceof Date ? { ...item, pubDate: pubDate.toUTCString() } : { ...item };
}
