import { create } from 'xmlbuilder2';
import type { ChannelView, ItemView } from './view';
import { xmlSafe as x } from './xml-chars';

export const DC_NS = 'http://purl.org/dc/elements/1.1/';
export const ATOM_NS = 'http://www.w3.org/2005/Atom';

/**
 * RSS 2.0 with xmlbuilder2. Text is escaped (never CDATA, which cannot hold `]]>`), so any
 * value comes back byte-exact after XML parsing. Characters XML 1.0 cannot carry (control
 * characters) are refused on publish; rows written by other means get U+FFFD (xmlSafe)
 * instead of a broken document.
 */
export function renderRss(
  channel: ChannelView,
  items: readonly ItemView[],
  selfUrl: string,
): string {
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele('rss', {
    version: '2.0',
    'xmlns:dc': DC_NS,
    'xmlns:atom': ATOM_NS,
  });
  const ch = root.ele('channel');
  ch.ele('title').txt(x(channel.title));
  ch.ele('link').txt(x(channel.link));
  ch.ele('description').txt(x(channel.description));
  ch.ele('language').txt(x(channel.language));
  ch.ele('copyright').txt(x(channel.copyright));
  ch.ele('lastBuildDate').txt(x(channel.lastBuildDate));
  ch.ele(ATOM_NS, 'atom:link', { href: x(selfUrl), rel: 'self', type: 'application/rss+xml' });
  for (const item of items) {
    const el = ch.ele('item');
    el.ele('title').txt(x(item.title));
    el.ele('link').txt(x(item.link));
    el.ele('author').txt(x(item.author));
    el.ele('description').txt(x(item.description));
    el.ele('category').txt(x(item.category));
    el.ele('pubDate').txt(x(item.pubDate));
    el.ele('guid').txt(x(item.guid));
    el.ele(DC_NS, 'dc:creator').txt(x(item.creator));
    if (item.enclosure)
      el.ele('enclosure', {
        url: x(item.enclosure.url),
        length: x(item.enclosure.length),
        type: x(item.enclosure.type),
      });
  }
  return root.end({ prettyPrint: false });
}
