import { create } from 'xmlbuilder2';
import { renderRss } from '../src/render/rss';
import { escapeAttribute, escapeText } from '../src/render/xml-markup';
import type { ChannelView, ItemView } from '../src/render/view';
import { CHANNEL_KEYS, ITEM_KEYS } from './helpers/requests';

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

/** The same feed built as one xmlbuilder2 document (what the service sent before its own writer). */
function reference(): string {
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele('rss', {
    version: '2.0',
    'xmlns:dc': 'http://purl.org/dc/elements/1.1/',
    'xmlns:atom': 'http://www.w3.org/2005/Atom',
  });
  const ch = root.ele('channel');
  for (const k of CHANNEL_KEYS) ch.ele(k).txt(channel[k]);
  ch.ele('http://www.w3.org/2005/Atom', 'atom:link', {
    href: 'https://feed.example.com/hub/contents',
    rel: 'self',
    type: 'application/rss+xml',
  });
  for (const item of items) {
    const el = ch.ele('item');
    for (const k of ITEM_KEYS) el.ele(k).txt(item[k]);
    el.ele('http://purl.org/dc/elements/1.1/', 'dc:creator').txt(item.creator);
    if (item.enclosure) el.ele('enclosure', item.enclosure);
  }
  return root.end({ prettyPrint: false });
}

test('When text holds no entity-like sequence or CR, the RSS is byte for byte the xmlbuilder2 document (feed readers see the same bytes as before)', () => {
  expect(renderRss(channel, items, 'https://feed.example.com/hub/contents')).toBe(reference());
});

test('When text looks like a reference or holds CR, NEL or LINE SEPARATOR, it is escaped as text, never passed through as markup', () => {
  expect(escapeText('Tom &amp; Jerry &#38; &lt;b&gt; &quot;')).toBe(
    'Tom &amp;amp; Jerry &amp;#38; &amp;lt;b&amp;gt; &amp;quot;',
  );
  expect(escapeText('a\u0085b\u2028c')).toBe('a&#133;b&#8232;c');
  expect(escapeAttribute('a\u0085b\u2028c')).toBe('a&#133;b&#8232;c');
  expect(escapeText('a\r\nb\rc\td "q" \'s\' ]]> <x>')).toBe(
    'a&#13;\nb&#13;c\td "q" \'s\' ]]&gt; &lt;x&gt;',
  );
  expect(escapeAttribute('https://a.example.com/?x=1&amp;y="2"\t\n\r<')).toBe(
    'https://a.example.com/?x=1&amp;amp;y=&quot;2&quot;&#9;&#10;&#13;&lt;',
  );
  expect(escapeText('bell\u0007 \ud800 ok 😀')).toBe('bell\uFFFD \uFFFD ok 😀');
});
