import { create, fragment } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';
import { LruCache } from '../cache/lru';
import type { ChannelView, ItemView } from './view';
import { xmlSafe as x } from './xml-chars';

export const DC_NS = 'http://purl.org/dc/elements/1.1/';
export const ATOM_NS = 'http://www.w3.org/2005/Atom';

/**
 * Serialized <item> elements by their content (the item view as JSON: any change of any
 * field, or of the default author, is another key). After a publish the feeds are rendered
 * again, but 99 of their 100 items have not changed: their XML is reused instead of being
 * rebuilt node by node. Bounded; 7 feeds hold at most 700 distinct items.
 */
const ITEM_XML = new LruCache<string, string>(2000);

/** Forgets every serialized item (the benchmark's cold renders). */
export function clearRenderedItems(): void {
  ITEM_XML.clear();
}

/**
 * RSS 2.0 with xmlbuilder2: the channel document and the <item>s are built by xmlbuilder2;
 * the items are serialized apart from the channel (namespace prefixes declared once, on
 * <rss>), remembered, and placed inside <channel>. Text is escaped (never CDATA, which cannot hold `]]>`), so any
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
  const document = root.end({ prettyPrint: false });
  // channel text is escaped, so the only "</channel>" is the closing tag
  const close = document.lastIndexOf('</channel>');
  return document.slice(0, close) + itemsXml(items) + document.slice(close);
}

/**
 * The items' XML, from the memo where possible; the rest are built together in one
 * xmlbuilder2 fragment and serialized once (cheaper than a document per item), then cut
 * at each "</item>" (text and attribute values are escaped, so that string only closes
 * an element).
 */
function itemsXml(items: readonly ItemView[]): string {
  const keys = items.map((item) => JSON.stringify(item));
  const out = keys.map((key) => ITEM_XML.get(key));
  const missing: number[] = [];
  out.forEach((xml, i) => {
    if (xml === undefined) missing.push(i);
  });
  if (missing.length > 0) {
    const frag = fragment();
    for (const i of missing) buildItem(frag.ele('item'), items[i]!);
    const parts = frag.end({ prettyPrint: false }).split('</item>');
    if (parts.length !== missing.length + 1) throw new Error('rendered items do not split cleanly');
    missing.forEach((i, n) => {
      const xml = `${parts[n]}</item>`;
      out[i] = xml;
      ITEM_XML.set(keys[i]!, xml);
    });
  }
  return out.join('');
}

function buildItem(el: XMLBuilder, item: ItemView): void {
  el.ele('title').txt(x(item.title));
  el.ele('link').txt(x(item.link));
  el.ele('author').txt(x(item.author));
  el.ele('description').txt(x(item.description));
  el.ele('category').txt(x(item.category));
  el.ele('pubDate').txt(x(item.pubDate));
  el.ele('guid').txt(x(item.guid));
  el.ele('dc:creator').txt(x(item.creator)); // prefix declared on <rss>
  if (item.enclosure) {
    el.ele('enclosure', {
      url: x(item.enclosure.url),
      length: x(item.enclosure.length),
      type: x(item.enclosure.type),
    });
  }
}
