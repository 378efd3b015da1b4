import { FEED_DEFAULTS } from '@hub/contracts';
import type { StoredItem } from '../store/items';

/** The channel as both formats show it (spec "channel" table); lastBuildDate is per request. */
export interface ChannelView {
  title: string;
  link: string;
  description: string;
  language: string;
  copyright: string;
  lastBuildDate: string;
}

/** An item as both formats show it (spec "item" table), every value a string. */
export interface ItemView {
  title: string;
  link: string;
  author: string;
  description: string;
  category: string;
  pubDate: string;
  guid: string;
  creator: string;
  enclosure?: { url: string; length: string; type: string };
}

/** RFC 822 date-time (RFC 1123 form, four-digit year, GMT): `Mon, 23 Nov 2026 05:26:57 GMT`. */
export function rfc822(date: Date): string {
  return date.toUTCString();
}

/** Stored item → spec item: defaults filled in, guid = link, dates in RFC 822. */
export function toItemView(item: StoredItem, defaultAuthor: string): ItemView {
  const view: ItemView = {
    title: item.title,
    link: item.link,
    author: item.author ?? defaultAuthor,
    description: item.description,
    category: item.category,
    pubDate: rfc822(item.pubDate),
    guid: item.link,
    creator: item.creator,
  };
  if (item.enclosure) {
    view.enclosure = {
      url: item.enclosure.url,
      length: item.enclosure.length ?? FEED_DEFAULTS.enclosure.length,
      type: item.enclosure.type ?? FEED_DEFAULTS.enclosure.type,
    };
  }
  return view;
}
