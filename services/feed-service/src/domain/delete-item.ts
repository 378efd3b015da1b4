import { FEED_ERRORS } from '@hub/contracts';
import { ServiceError } from '@hub/service-kit';
import { touchedFeeds } from '../store/feed-changes';
import type { FeedContext } from './context';
import { feedsChanged } from './feeds-changed';
import { parseItemId } from './item-input';

/** DELETE an item: gone from every feed at once; unknown id → 404. */
export async function deleteItem(ctx: FeedContext, rawId: string): Promise<void> {
  const id = parseItemId(rawId);
  if (id === undefined) throw new ServiceError(FEED_ERRORS.notFound);
  const category = await ctx.items.remove(id);
  if (category === undefined) throw new ServiceError(FEED_ERRORS.notFound);
  feedsChanged(ctx, touchedFeeds([category]));
}
