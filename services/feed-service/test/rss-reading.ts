import { DOMParser, type Element } from '@xmldom/xmldom';
import Parser from 'rss-parser';

/** Namespace of dc:creator. */
const DC = 'http://purl.org/dc/elements/1.1/';

export interface ParsedChannel {
  title: string;
  link: string;
  description: string;
  language: string;
  copyright: string;
  item: ParsedItem[];
}
export interface ParsedItem {
  title: string;
  link: string;
  author: string;
  description: string;
  category: string;
  guid: string;
  creator: string;
  enclosure?: { url: string; length: string; type: string };
}

/**
 * A DOM parser (@xmldom/xmldom) with every well-formedness problem fatal: entity and
 * character references are resolved, line ends normalised as XML 1.0 says.
 */
export function parseWithDom(xml: string): ParsedChannel {
  const doc = new DOMParser({
    onError: (level, message) => {
      if (level !== 'warning') throw new Error(`XML ${level}: ${message}`);
    },
  }).parseFromString(xml, 'text/xml');
  const channel = doc.getElementsByTagName('channel')[0]!;
  const text = (parent: Element, name: string, ns?: string): string => {
    const found = ns
      ? parent.getElementsByTagNameNS(ns, name)[0]
      : [...childElements(parent)].find((e) => e.tagName === name);
    if (!found) throw new Error(`no <${name}> in <${parent.tagName}>`);
    return found.textContent ?? '';
  };
  const items = [...childElements(channel)].filter((e) => e.tagName === 'item');
  return {
    title: text(channel, 'title'),
    link: text(channel, 'link'),
    description: text(channel, 'description'),
    language: text(channel, 'language'),
    copyright: text(channel, 'copyright'),
    item: items.map((el) => {
      const item: ParsedItem = {
        title: text(el, 'title'),
        link: text(el, 'link'),
        author: text(el, 'author'),
        description: text(el, 'description'),
        category: text(el, 'category'),
        guid: text(el, 'guid'),
        creator: text(el, 'creator', DC),
      };
      const enclosure = el.getElementsByTagName('enclosure')[0];
      if (enclosure)
        item.enclosure = {
          url: enclosure.getAttribute('url') ?? '',
          length: enclosure.getAttribute('length') ?? '',
          type: enclosure.getAttribute('type') ?? '',
        };
      return item;
    }),
  };
}

function* childElements(parent: Element): Generator<Element> {
  for (let n = parent.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) yield n as Element;
}

/** rss-parser with the item members it leaves out unless asked: author, category, description. */
export const rssParser = new Parser({
  customFields: { item: ['author', 'category', 'description'] },
});

/** A feed reader's parser: rss-parser (xml2js on sax). */
export async function parseWithRssParser(xml: string): Promise<ParsedChannel> {
  const feed = await rssParser.parseString(xml);
  return {
    title: feed.title ?? '',
    link: feed.link ?? '',
    description: feed.description ?? '',
    language: String((feed as { language?: string }).language ?? ''),
    copyright: String((feed as { copyright?: string }).copyright ?? ''),
    item: feed.items.map((raw) => {
      const it = raw as unknown as Record<string, unknown>;
      const item: ParsedItem = {
        title: String(it.title),
        link: String(it.link),
        author: String(it.author),
        description: String(it.description),
        category: String((it.categories as string[] | undefined)?.[0]),
        guid: String(it.guid),
        creator: String(it.creator),
      };
      if (it.enclosure) item.enclosure = it.enclosure as ParsedItem['enclosure'];
      return item;
    }),
  };
}
