import { touchedFeeds } from '../store/items';
import type { FeedContext } from './context';
import { parseItemInput } from './item-input';
import { toPublishedItem, type PublishedItem } from './published-item';

/**
 * POST an item: validate it (422 names the bad field, nothing is stored), store it (the
 * same transaction NOTIFYs every instance), drop this instance's affected feeds at once.
 */
export async function publishItem(ctx: FeedContext, body: unknown): Promise<PublishedItem> {
  const fields = parseItemInput(body, new Date(ctx.clock()));
  const stored = await ctx.items.insert(fields);
  ctx.cache.invalidate(touchedFeeds([stored.category]));
  return toPublishedItem(ctx, stored);
}
