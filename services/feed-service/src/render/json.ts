import type { ChannelView, ItemView } from './view';

/** `{"channel": {..., "item": [...]}}`: same names as RSS, enclosure nested, UTF-8 as is. */
export function renderJson(channel: ChannelView, items: readonly ItemView[]): string {
  return JSON.stringify({
    channel: {
      title: channel.title,
      link: channel.link,
      description: channel.description,
      language: channel.language,
      copyright: channel.copyright,
      lastBuildDate: channel.lastBuildDate,
      item: items,
    },
  });
}
