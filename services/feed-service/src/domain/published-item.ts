import { FEED_ERRORS } from '@hub/contracts';
import { ServiceError } from '@hub/service-kit';
import { toItemView, type ItemView } from '../render';
import type { StoredItem } from '../store/item-types';
import type { FeedContext } from './context';

/** What the write side answers: the item as the feed shows it, plus its id. */
export type PublishedItem = { id: string } & ItemView;

export function toPublishedItem(ctx: FeedContext, item: StoredItem): PublishedItem {
  return { id: item.id, ...toItemView(item, ctx.config.defaultAuthor) };
}

/** The item's URL on the write side (`Location`). */
export function itemLocation(ctx: FeedContext, id: string): string {
  return `${ctx.config.baseUrl}/hub/contents/${id}`;
}

/** 409: another item has this link (the link identifies an item); `Location` names it. */
export function linkTaken(ctx: FeedContext, holder: StoredItem): ServiceError {
  return new ServiceError(FEED_ERRORS.linkConflict, {
    headers: { Location: itemLocation(ctx, holder.id) },
  });
}
