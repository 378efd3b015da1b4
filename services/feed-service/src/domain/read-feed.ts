import { FEED_MAX_ITEMS, type FeedFormat } from '@hub/contracts';
import type { FeedRepresentation } from '../cache/feed-cache';
import { renderFeed, toItemView } from '../render';
import type { FeedKey, FeedSnapshot } from '../store/item-types';
import type { FeedConfig } from '../config';
import type { FeedContext } from './context';

/** Path of a feed, as in atom:link rel="self". */
export function feedPath(feed: FeedKey): string {
  return feed === 'all' ? '/hub/contents' : `/hub/categories/${feed}/contents`;
}

/** Absolute URL of a feed: atom:link rel="self", and the topic WebSub hubs are told about. */
export function feedUrl(config: FeedConfig, feed: FeedKey): string {
  return `${config.baseUrl}${feedPath(feed)}`;
}

/**
 * GET a feed: the cached rendering when there is one; otherwise the latest 100 items
 * (newest pubDate first) are read in one snapshot, rendered once for this format, and cached.
 */
export function readFeed(
  ctx: FeedContext,
  feed: FeedKey,
  format: FeedFormat,
): Promise<FeedRepresentation> {
  return ctx.cache.getOrLoad(feed, format, () => renderFromStore(ctx, feed, format));
}

/** The uncached path on its own (the benchmark times it). */
export async function renderFromStore(
  ctx: FeedContext,
  feed: FeedKey,
  format: FeedFormat,
): Promise<FeedRepresentation> {
  const snapshot = await ctx.items.latest(feed, FEED_MAX_ITEMS);
  return represent(ctx, feed, format, snapshot);
}

function represent(
  ctx: FeedContext,
  feed: FeedKey,
  format: FeedFormat,
  snapshot: FeedSnapshot,
): FeedRepresentation {
  const { config } = ctx;
  const items = snapshot.items.map((item) => toItemView(item, config.defaultAuthor));
  const { head, tail } = renderFeed(
    format,
    config.channel,
    items,
    feedUrl(config, feed),
    config.websubHubs,
  );
  return { head, tail, format, changedAt: snapshot.lastModified, readAt: snapshot.readAt };
}
