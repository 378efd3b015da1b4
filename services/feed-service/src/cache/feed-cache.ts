import { FEED_CATEGORY_CODES, type FeedFormat } from '@hub/contracts';
import type { FeedKey } from '../store/item-types';

/**
 * A rendered feed: the body around its lastBuildDate, and when its items last changed. What
 * HTTP makes of it (ETag, Last-Modified, 304s) is the HTTP edge's (http/feed-response.ts).
 */
export interface FeedRepresentation {
  head: Buffer;
  tail: Buffer;
  format: FeedFormat;
  /** newest change of the feed (writes and deletions), null when nothing is known */
  changedAt: Date | null;
  /** the database's clock when the items were read */
  readAt: Date;
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
export interface FeedCache {
  /** Whether entries are being kept (invalidation is live). */
  readonly enabled: boolean;
  /** lookups by getOrLoad answered from an entry */
  readonly hits: number;
  /** lookups by getOrLoad that loaded (or joined a load under way) */
  readonly misses: number;
  /** Invalidation became live (true) or was lost (false); either way nothing old survives. */
  setLive(live: boolean): void;
  /** The cached representation, if any (synchronous: the fast path uses it). */
  peek(feed: FeedKey, format: FeedFormat, now: number): FeedRepresentation | undefined;
  getOrLoad(
    feed: FeedKey,
    format: FeedFormat,
    load: () => Promise<FeedRepresentation>,
  ): Promise<FeedRepresentation>;
  /** Drops the given feeds in both formats (the feeds a write touched). */
  invalidate(feeds: readonly string[]): void;
  clear(): void;
}

export function createFeedCache(clock: () => number = Date.now): FeedCache {
  const entries = new Map<string, Entry>();
  const inflight = new Map<string, Promise<FeedRepresentation>>();
  /** bumped by clear(); per-key generations are bumped by invalidate() */
  let epoch = 0;
  const generations = new Map<string, number>();
  let live = false;
  let hits = 0;
  let misses = 0;

  function clear(): void {
    epoch++;
    entries.clear();
    inflight.clear();
  }

  function setLive(isLive: boolean): void {
    live = isLive;
    clear();
  }

  function peek(feed: FeedKey, format: FeedFormat, now: number): FeedRepresentation | undefined {
    const entry = entries.get(key(feed, format));
    if (entry === undefined || entry.expiresAt <= now) return undefined;
    return entry.value;
  }

  async function getOrLoad(
    feed: FeedKey,
    format: FeedFormat,
    load: () => Promise<FeedRepresentation>,
  ): Promise<FeedRepresentation> {
    const k = key(feed, format);
    const now = clock();
    const entry = entries.get(k);
    if (entry !== undefined && entry.expiresAt > now) {
      hits++;
      return entry.value;
    }
    misses++;
    const pending = inflight.get(k);
    if (pending) return pending;
    const started = epoch;
    const generation = generations.get(k) ?? 0;
    const promise = load().then(
      (value) => {
        if (inflight.get(k) === promise) inflight.delete(k);
        if (live && started === epoch && generation === (generations.get(k) ?? 0))
          entries.set(k, { value, expiresAt: clock() + CACHE_SAFETY_TTL_MS });
        return value;
      },
      (err: unknown) => {
        if (inflight.get(k) === promise) inflight.delete(k);
        throw err;
      },
    );
    inflight.set(k, promise);
    return promise;
  }

  function invalidate(feeds: readonly string[]): void {
    for (const feed of feeds) {
      if (!FEEDS.has(feed)) continue;
      for (const format of ['xml', 'json'] as const) {
        const k = key(feed, format);
        generations.set(k, (generations.get(k) ?? 0) + 1);
        entries.delete(k);
        inflight.delete(k);
      }
    }
  }

  return {
    get enabled() {
      return live;
    },
    get hits() {
      return hits;
    },
    get misses() {
      return misses;
    },
    setLive,
    peek,
    getOrLoad,
    invalidate,
    clear,
  };
}

/** The entry keys, built once (the fast path looks one up per request). */
const KEYS = new Map<string, Record<FeedFormat, string>>(
  [...FEEDS].map((feed) => [feed, { xml: `${feed}:xml`, json: `${feed}:json` }]),
);

function key(feed: string, format: FeedFormat): string {
  return KEYS.get(feed)?.[format] ?? `${feed}:${format}`;
}
