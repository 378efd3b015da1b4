import type { ChannelView, ItemView } from './view';

/**
 * `{"channel": {..., "item": [...]}}`: same names as RSS, enclosure nested, UTF-8 as is.
 * With WebSub hubs configured the channel also lists them in `hub` (what RSS says with
 * atom:link rel="hub"); without, the member is absent.
 */
export function renderJson(
  channel: ChannelView,
  items: readonly ItemView[],
  hubs: readonly string[] = [],
): string {
  return JSON.stringify({
    channel: {
      title: channel.title,
      link: channel.link,
      description: channel.description,
      language: channel.language,
      copyright: channel.copyright,
      lastBuildDate: channel.lastBuildDate,
      ...(hubs.length ? { hub: hubs } : {}),
      item: items,
    },
  });
}
