import type { ChannelView, ItemView } from './view';
import { element, textElement, XML_DECLARATION } from './xml-markup';

export const DC_NS = 'http://purl.org/dc/elements/1.1/';
export const ATOM_NS = 'http://www.w3.org/2005/Atom';

/** The channel's text elements, in document order (element name = field name). */
const CHANNEL_ELEMENTS = [
  'title',
  'link',
  'description',
  'language',
  'copyright',
  'lastBuildDate',
] as const;
/** An item's text elements, in document order: [element, field]. */
const ITEM_ELEMENTS = [
  ['title', 'title'],
  ['link', 'link'],
  ['author', 'author'],
  ['description', 'description'],
  ['category', 'category'],
  ['pubDate', 'pubDate'],
  ['guid', 'guid'],
  ['dc:creator', 'creator'], // prefix declared on <rss>
] as const;

/**
 * RSS 2.0: `<rss>` with the dc and atom prefixes declared once, the channel elements,
 * atom:link rel="self", an atom:link rel="hub" per WebSub hub, then the items. Every value goes through xml-markup.ts (the one
 * place text becomes XML), so any value comes back byte-exact after XML parsing.
 */
export function renderRss(
  channel: ChannelView,
  items: readonly ItemView[],
  selfUrl: string,
  hubs: readonly string[] = [],
): string {
  let content = '';
  for (const name of CHANNEL_ELEMENTS) content += textElement(name, channel[name]);
  content += element('atom:link', { href: selfUrl, rel: 'self', type: 'application/rss+xml' });
  for (const hub of hubs) content += element('atom:link', { href: hub, rel: 'hub' });
  for (const item of items) content += itemXml(item);
  return (
    XML_DECLARATION +
    element(
      'rss',
      { version: '2.0', 'xmlns:dc': DC_NS, 'xmlns:atom': ATOM_NS },
      element('channel', {}, content),
    )
  );
}

function itemXml(item: ItemView): string {
  let content = '';
  for (const [name, field] of ITEM_ELEMENTS) content += textElement(name, item[field]);
  if (item.enclosure) {
    const { url, length, type } = item.enclosure;
    content += element('enclosure', { url, length, type });
  }
  return element('item', {}, content);
}
