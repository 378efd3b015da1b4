import { FEED_CHANNEL_FIELDS, feedFieldNames } from '@hub/contracts';
import { CHANNEL_TEXT_FIELDS, type ChannelView, type ItemView } from './view';

/** The channel table's list field: the items. */
const ITEM_LIST = feedFieldNames(FEED_CHANNEL_FIELDS, 'Array')[0]!;

/**
 * `{"channel": {..., "item": [...]}}`: the channel table's fields in its order, the same names
 * as RSS, each item's fields in the item table's order (see toItemView), enclosure nested,
 * UTF-8 as is. With WebSub hubs configured the channel also lists them in `hub` before the
 * items (what RSS says with atom:link rel="hub"); without, the member is absent.
 */
export function renderJson(
  channel: ChannelView,
  items: readonly ItemView[],
  hubs: readonly string[] = [],
): string {
  const members: Record<string, unknown> = {};
  for (const name of CHANNEL_TEXT_FIELDS) members[name] = channel[name];
  if (hubs.length) members.hub = hubs;
  members[ITEM_LIST] = items;
  return JSON.stringify({ channel: members });
}
