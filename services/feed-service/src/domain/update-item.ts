import { FEED_ERRORS } from '@hub/contracts';
import { ServiceError } from '@hub/service-kit';
import { touchedFeeds } from '../store/items';
import type { FeedContext } from './context';
import { parseItemId, parseItemInput } from './item-input';
import { toPublishedItem, type PublishedItem } from './published-item';

/**
 * PUT an item: a full replacement under the same rules as POST (omitted optional fields
 * fall back to their defaults). Unknown id → 404. The old and new category feeds change.
 */
export async function updateItem(
  ctx: FeedContext,
  rawId: string,
  body: unknown,
): Promise<PublishedItem> {
  const id = parseItemId(rawId);
  if (id === undefined) throw new ServiceError(FEED_ERRORS.notFound);
  const fields = parseItemInput(body, new Date(ctx.clock()));
  const { stored, oldCategory } = (await ctx.items.replace(id, fields)) ?? {};
  if (!stored) throw new ServiceError(FEED_ERRORS.notFound);
  ctx.cache.invalidate(touchedFeeds([oldCategory!, stored.category]));
  return toPublishedItem(ctx, stored);
}
