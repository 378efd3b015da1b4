import type { FeedKey } from '../store/item-types';
import type { FeedContext } from './context';
import { feedUrl } from './read-feed';

/**
 * After a write has committed (its NOTIFY reaches every instance): this instance drops the
 * changed feeds at once, and the WebSub hubs are told their URLs (in the background; the
 * response does not wait for them).
 */
export function feedsChanged(ctx: FeedContext, feeds: readonly FeedKey[]): void {
  ctx.cache.invalidate(feeds);
  ctx.hubs.announce(feeds.map((feed) => feedUrl(ctx.config, feed)));
}
