import {
  FEED_CHANNEL_FIELDS,
  FEED_ENCLOSURE_FIELDS,
  FEED_ITEM_FIELDS,
  feedFieldNames,
  type FeedFieldName,
} from '@hub/contracts';
import type { ChannelConfig } from '../config';
import type { StoredItem } from '../store/item-types';

/** The channel as both formats show it: the text fields of the spec's channel table. */
export type ChannelView = ChannelConfig & { lastBuildDate: string };

/** An enclosure as both formats show it (spec "enclosure" table), defaults filled in. */
export type EnclosureView = Record<FeedFieldName<typeof FEED_ENCLOSURE_FIELDS>, string>;

export type ItemTextField = FeedFieldName<typeof FEED_ITEM_FIELDS, 'String'>;

/** An item as both formats show it: the text fields of the spec's item table, and the enclosure. */
export type ItemView = Record<ItemTextField, string> & { enclosure?: EnclosureView };

/** The tables' fields in table order: the order both formats write them in. */
export const CHANNEL_TEXT_FIELDS = feedFieldNames(FEED_CHANNEL_FIELDS, 'String');
export const ITEM_TEXT_FIELDS = feedFieldNames(FEED_ITEM_FIELDS, 'String');
export const ENCLOSURE_FIELDS = feedFieldNames(FEED_ENCLOSURE_FIELDS, 'String');

/** RFC 822 date-time (RFC 1123 form, four-digit year, GMT): `Mon, 23 Nov 2026 05:26:57 GMT`. */
export function rfc822(date: Date): string {
  return date.toUTCString();
}

/** Where each text field of the item table gets its value (a field added there must say). */
const ITEM_VALUES: Record<ItemTextField, (item: StoredItem, defaultAuthor: string) => string> = {
  title: (item) => item.title,
  link: (item) => item.link,
  author: (item, defaultAuthor) => item.author ?? defaultAuthor,
  description: (item) => item.description,
  category: (item) => item.category,
  pubDate: (item) => rfc822(item.pubDate),
  guid: (item) => item.link,
  creator: (item) => item.creator,
};

/** The spec's default of each enclosure field that has one. */
const ENCLOSURE_DEFAULTS: Partial<Record<keyof EnclosureView, string>> = Object.fromEntries(
  FEED_ENCLOSURE_FIELDS.flatMap((field) =>
    'default' in field ? [[field.name, field.default]] : [],
  ),
);

/**
 * Stored item → spec item, its fields in table order (the JSON writes them so): defaults
 * filled in, guid = link, dates in RFC 822.
 */
export function toItemView(item: StoredItem, defaultAuthor: string): ItemView {
  const view = {} as ItemView;
  for (const name of ITEM_TEXT_FIELDS) view[name] = ITEM_VALUES[name](item, defaultAuthor);
  const stored = item.enclosure;
  if (stored) {
    const enclosure = {} as EnclosureView;
    for (const name of ENCLOSURE_FIELDS)
      enclosure[name] = stored[name] ?? ENCLOSURE_DEFAULTS[name]!;
    view.enclosure = enclosure;
  }
  return view;
}
