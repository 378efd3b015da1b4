import { toItemView, type ItemView } from '../render';
import type { StoredItem } from '../store/items';
import type { FeedContext } from './context';

/** What the write side answers: the item as the feed shows it, plus its id. */
export type PublishedItem = { id: string } & ItemView;

export function toPublishedItem(ctx: FeedContext, item: StoredItem): PublishedItem {
  return { id: item.id, ...toItemView(item, ctx.config.defaultAuthor) };
}
