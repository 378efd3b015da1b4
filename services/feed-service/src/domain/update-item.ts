import { FEED_ERRORS } from '@hub/contracts';
import { ServiceError } from '@hub/service-kit';
import { touchedFeeds } from '../store/feed-changes';
import type { FeedContext } from './context';
import { feedsChanged } from './feeds-changed';
import { parseItemId, parseItemInput } from './item-input';
import { linkTaken, toPublishedItem, type PublishedItem } from './published-item';

/**
 * PUT an item: a full replacement under the same rules as POST (omitted optional fields
 * fall back to their defaults). Unknown id → 404; a link another item has → 409 naming
 * that item. The old and new category feeds change.
 */
export async function updateItem(
  ctx: FeedContext,
  rawId: string,
  body: unknown,
): Promise<PublishedItem> {
  const id = parseItemId(rawId);
  if (id === undefined) throw new ServiceError(FEED_ERRORS.notFound);
  const { fields } = parseItemInput(body, new Date(ctx.clock()));
  const outcome = await ctx.items.replace(id, fields);
  if (outcome.kind === 'missing') throw new ServiceError(FEED_ERRORS.notFound);
  if (outcome.kind === 'link-taken') throw linkTaken(ctx, outcome.holder);
  feedsChanged(ctx, touchedFeeds([outcome.oldCategory, outcome.stored.category]));
  return toPublishedItem(ctx, outcome.stored);
}
