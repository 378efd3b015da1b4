import { create } from 'xmlbuilder2';
import { clearRenderedItems, renderRss } from '../src/render/rss';
import type { ChannelView, ItemView } from '../src/render/view';

const channel: ChannelView = {
  title: '허브 <콘텐츠> & ]]>',
  link: 'https://hub.example.com',
  description: '설명 😀',
  language: 'ko',
  copyright: '© 2026',
  lastBuildDate: 'Mon, 23 Nov 2026 05:26:57 GMT',
};
const items: ItemView[] = [0, 1, 2].map((i) => ({
  title: `제목 ${i} <b>&</b> ]]>`,
  link: `https://hub.example.com/a?x=${i}&y=2`,
  author: 'hub@example.com (허브 <&>)',
  description: `<p>본문 ${i}</p> ]]> 🍜`,
  category: 'food',
  pubDate: 'Mon, 23 Nov 2026 05:26:57 GMT',
  guid: `https://hub.example.com/a?x=${i}&y=2`,
  creator: `작성자 ${i} "q" 's'`,
  ...(i === 1
    ? {
        enclosure: {
          url: 'https://img.example.com/1.jpg?a=1&b=2',
          length: '1',
          type: 'image/jpeg',
        },
      }
    : {}),
}));

/** The plain way: one xmlbuilder2 document with every element, namespaces by URI. */
function reference(): string {
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele('rss', {
    version: '2.0',
    'xmlns:dc': 'http://purl.org/dc/elements/1.1/',
    'xmlns:atom': 'http://www.w3.org/2005/Atom',
  });
  const ch = root.ele('channel');
  for (const k of [
    'title',
    'link',
    'description',
    'language',
    'copyright',
    'lastBuildDate',
  ] as const)
    ch.ele(k).txt(channel[k]);
  ch.ele('http://www.w3.org/2005/Atom', 'atom:link', {
    href: 'https://feed.example.com/hub/contents',
    rel: 'self',
    type: 'application/rss+xml',
  });
  for (const item of items) {
    const el = ch.ele('item');
    for (const k of [
      'title',
      'link',
      'author',
      'description',
      'category',
      'pubDate',
      'guid',
    ] as const)
      el.ele(k).txt(item[k]);
    el.ele('http://purl.org/dc/elements/1.1/', 'dc:creator').txt(item.creator);
    if (item.enclosure) el.ele('enclosure', item.enclosure);
  }
  return root.end({ prettyPrint: false });
}

test('When items are rendered one by one and reused, the RSS is byte for byte the single-document rendering', () => {
  clearRenderedItems();
  const cold = renderRss(channel, items, 'https://feed.example.com/hub/contents');
  const warm = renderRss(channel, items, 'https://feed.example.com/hub/contents');
  expect(cold).toBe(reference());
  expect(warm).toBe(cold);
});

test('When an item changes in any field, its XML is rendered again, not reused', () => {
  const before = renderRss(channel, items, 'https://feed.example.com/hub/contents');
  const changed = items.map((i, n) => (n === 2 ? { ...i, creator: '다른 사람' } : i));
  const after = renderRss(channel, changed, 'https://feed.example.com/hub/contents');
  expect(after).not.toBe(before);
  expect(after).toContain('<dc:creator>다른 사람</dc:creator>');
  expect(after).not.toContain('작성자 2');
});
