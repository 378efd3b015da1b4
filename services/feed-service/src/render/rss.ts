import {
  CHANNEL_TEXT_FIELDS,
  ENCLOSURE_FIELDS,
  ITEM_TEXT_FIELDS,
  type ChannelView,
  type ItemTextField,
  type ItemView,
} from './view';
import { element, textElement, XML_DECLARATION } from './xml-markup';

export const DC_NS = 'http://purl.org/dc/elements/1.1/';
export const ATOM_NS = 'http://www.w3.org/2005/Atom';

/** Item fields whose RSS element is not named like the field (the prefix is declared on <rss>). */
const RSS_ELEMENT_NAMES: Partial<Record<ItemTextField, string>> = {
  creator: 'dc:creator',
};
/** An item's text elements, in the item table's order: [element, field]. */
const ITEM_ELEMENTS = ITEM_TEXT_FIELDS.map(
  (field) => [RSS_ELEMENT_NAMES[field] ?? field, field] as const,
);

/**
 * RSS 2.0: `<rss>` with the dc and atom prefixes declared once, the channel elements (the
 * channel table's text fields, in its order), atom:link rel="self", an atom:link rel="hub" per
 * WebSub hub, then the items. Every value goes through xml-markup.ts (the one place text
 * becomes XML), so any value comes back byte-exact after XML parsing.
 */
export function renderRss(
  channel: ChannelView,
  items: readonly ItemView[],
  selfUrl: string,
  hubs: readonly string[] = [],
): string {
  let content = '';
  for (const name of CHANNEL_TEXT_FIELDS) content += textElement(name, channel[name]);
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
  const enclosure = item.enclosure;
  if (enclosure) {
    const attributes: Record<string, string> = {};
    for (const name of ENCLOSURE_FIELDS) attributes[name] = enclosure[name];
    content += element('enclosure', attributes);
  }
  return element('item', {}, content);
}
