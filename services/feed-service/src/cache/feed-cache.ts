import { FEED_CATEGORY_CODES, type FeedFormat } from '@hub/contracts';
import type { FeedKey } from '../store/items';

/** A feed ready to send: the rendered body around its lastBuildDate, and its validators. */
export interface FeedRepresentation {
  head: Buffer;
  tail: Buffer;
  /** weak ETag from a hash of the content (lastBuildDate excluded) */
  etag: string;
  /** HTTP-date of the newest change, when known */
  lastModified?: string;
  /** lastModified in whole seconds since the epoch */
  lastModifiedSeconds?: number;
  /**
   * Whether If-Modified-Since may be answered with 304: not when the feed changed in the
   * same second it was read (a later change in that second would share the Last-Modified).
   */
  lastModifiedReliable: boolean;
  format: FeedFormat;
}

interface Entry {
  value: FeedRepresentation;
  expiresAt: number;
}

const FEEDS = new Set<string>(['all', ...FEED_CATEGORY_CODES]);

/** Entries are dropped on NOTIFY; this bounds the damage of a notification lost unnoticed. */
export const CACHE_SAFETY_TTL_MS = 5 * 60_000;

/**
 * Rendered feeds per (feed, format). Only filled while invalidation is live (the LISTEN
 * connection is up); concurrent misses of one key share a single render; a render that
 * started before an invalidation is handed to its callers but never stored.
 */
export class FeedCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<FeedRepresentation>>();
  /** bumped by clear(); per-key generations are bumped by invalidate() */
  private epoch = 0;
  private readonly generations = new Map<string, number>();
  private live = false;
  hits = 0;
  misses = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  /** Whether entries are being kept (invalidation is live). */
  get enabled(): boolean {
    return this.live;
  }

  /** Invalidation became live (true) or was lost (false); either way nothing old survives. */
  setLive(live: boolean): void {
    this.live = live;
    this.clear();
  }

  /** The cached representation, if any (synchronous: the fast path uses it). */
  peek(feed: FeedKey, format: FeedFormat, now: number): FeedRepresentation | undefined {
    const entry = this.entries.get(key(feed, format));
    if (entry === undefined || entry.expiresAt <= now) return undefined;
    return entry.value;
  }

  async getOrLoad(
    feed: FeedKey,
    format: FeedFormat,
    load: () => Promise<FeedRepresentation>,
  ): Promise<FeedRepresentation> {
    const k = key(feed, format);
    const now = this.clock();
    const entry = this.entries.get(k);
    if (entry !== undefined && entry.expiresAt > now) {
      this.hits++;
      return entry.value;
    }
    this.misses++;
    const pending = this.inflight.get(k);
    if (pending) return pending;
    const epoch = this.epoch;
    const generation = this.generations.get(k) ?? 0;
    const promise = load().then(
      (value) => {
        if (this.inflight.get(k) === promise) this.inflight.delete(k);
        if (this.live && epoch === this.epoch && generation === (this.generations.get(k) ?? 0))
          this.entries.set(k, { value, expiresAt: this.clock() + CACHE_SAFETY_TTL_MS });
        return value;
      },
      (err: unknown) => {
        if (this.inflight.get(k) === promise) this.inflight.delete(k);
        throw err;
      },
    );
    this.inflight.set(k, promise);
    return promise;
  }

  /** Drops the given feeds in both formats (the feeds a write touched). */
  invalidate(feeds: readonly string[]): void {
    for (const feed of feeds) {
      if (!FEEDS.has(feed)) continue;
      for (const format of ['xml', 'json'] as const) {
        const k = key(feed, format);
        this.generations.set(k, (this.generations.get(k) ?? 0) + 1);
        this.entries.delete(k);
        this.inflight.delete(k);
      }
    }
  }

  clear(): void {
    this.epoch++;
    this.entries.clear();
    this.inflight.clear();
  }
}

/** The entry keys, built once (the fast path looks one up per request). */
const KEYS = new Map<string, Record<FeedFormat, string>>(
  [...FEEDS].map((feed) => [feed, { xml: `${feed}:xml`, json: `${feed}:json` }]),
);

function key(feed: string, format: FeedFormat): string {
  return KEYS.get(feed)?.[format] ?? `${feed}:${format}`;
}
