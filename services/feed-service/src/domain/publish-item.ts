import { touchedFeeds } from '../store/feed-changes';
import type { FeedContext } from './context';
import { feedsChanged } from './feeds-changed';
import { parseItemInput } from './item-input';
import { linkTaken, toPublishedItem, type PublishedItem } from './published-item';
import { sameItem } from './same-item';

export interface Published {
  /** 201: stored now; 200: the same item was already stored (a retry) */
  status: 201 | 200;
  item: PublishedItem;
}

/**
 * POST an item: validate it (422 names the bad field, nothing is stored), store it (the
 * same transaction NOTIFYs every instance), drop this instance's affected feeds at once.
 * The link identifies an item: when it is taken, repeating that item exactly is a safe
 * retry (200, nothing written); anything else is a 409 naming the item that has it.
 */
export async function publishItem(ctx: FeedContext, body: unknown): Promise<Published> {
  const input = parseItemInput(body, new Date(ctx.clock()));
  const outcome = await ctx.items.insert(input.fields);
  if (outcome.created) {
    feedsChanged(ctx, touchedFeeds([outcome.stored.category]));
    return { status: 201, item: toPublishedItem(ctx, outcome.stored) };
  }
  if (!sameItem(outcome.stored, input)) throw linkTaken(ctx, outcome.stored);
  return { status: 200, item: toPublishedItem(ctx, outcome.stored) };
}
