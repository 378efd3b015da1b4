import fc from 'fast-check';
import request from 'supertest';
import { FEED_CATEGORY_CODES } from '@hub/contracts';
import { makeApp, useDatabase } from './helpers/harness';
import { ACCEPT_XML, getFeed, publish } from './helpers/requests';
import { WRITE_TOKEN } from './helpers/tokens';
import { parseWithDom, parseWithRssParser, type ParsedChannel } from './rss-reading';

const db = useDatabase();

/** What text XML makes hard: markup, entity-like text, a CDATA end, quotes, every line end. */
const TRICKY = [
  '&',
  '&amp;',
  '&amp;amp;',
  '&lt;',
  '&gt;',
  '&quot;',
  '&apos;',
  '&#38;',
  '&#x26;',
  '&#13;',
  '&#10;',
  '&nbsp;',
  '&bogus;',
  '&#;',
  ']]>',
  ']]',
  '<![CDATA[',
  '<!--',
  '-->',
  '<',
  '>',
  '<b>',
  '"',
  "'",
  '\t',
  '\n',
  '\r',
  '\r\n',
  '\n\r',
  '\u0085', // NEL: XML 1.1 end-of-line handling (and xmldom) turns a literal one into LF
  '\u2028',
  '\u2029', // PARAGRAPH SEPARATOR: xmldom turns a literal one into LF too
  ' ',
  '  ',
  '한글',
  '😀',
  '🇰🇷',
  'e\u0301',
  '\u0301',
  '\u1100\u1161\u11a8', // 각 as conjoining jamo
  '\uFEFF',
  'x',
];

/** One character XML 1.0 can carry (tab, LF, CR, U+0020–U+D7FF, U+E000–U+FFFD, U+10000–U+10FFFF). */
const xmlChar = fc.oneof(
  fc.constantFrom('\t', '\n', '\r'),
  fc.integer({ min: 0x20, max: 0xd7ff }).map((c) => String.fromCodePoint(c)),
  fc.integer({ min: 0xe000, max: 0xfffd }).map((c) => String.fromCodePoint(c)),
  fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
);

/** Text mixing the tricky pieces with arbitrary XML characters; never blank (blank is a 422). */
function text(maxPieces: number, exclude?: RegExp) {
  return fc
    .array(fc.oneof(fc.constantFrom(...TRICKY), fc.string({ unit: xmlChar, maxLength: 6 })), {
      minLength: 1,
      maxLength: maxPieces,
    })
    .map((parts) => parts.join(''))
    .map((s) => (exclude ? s.replace(exclude, '') : s))
    .filter((s) => s.trim() !== '');
}

/** URI characters (what links must hold), with entity-like sequences among them. */
const uriPart = fc.oneof(
  fc.constantFrom('&', '&amp;', '&lt;', '&#38;', '&#x26;', '&quot;', "'", '(', ')', ';', '=', '?'),
  fc.constantFrom('#', '%3C', '%5D%5D%3E', '%0D%0A', '~', '+', ',', '*', '!', '$', '@', ':'),
  fc.stringMatching(/^[A-Za-z0-9._-]{1,6}$/),
);
const url = (host: string) =>
  fc
    .array(uriPart, { maxLength: 10 })
    .map((parts) => `https://${host}/${parts.join('')}`)
    .filter((u) => !u.endsWith('/'));

/** `local@domain (Name)` as <author> must be; the parts full of entity-like text. */
const author = fc
  .tuple(
    fc.array(fc.constantFrom('&amp;', '&#38;', '&quot;', '"', "'", 'a', '한', '😀', ']]', ';'), {
      minLength: 1,
      maxLength: 5,
    }),
    fc.option(text(5, /[()\r\n]/g), { nil: undefined }),
  )
  .map(([local, name]) => `${local.join('')}@example.com${name ? ` (${name})` : ''}`);

const mimeType = fc
  .array(fc.constantFrom('&', 'amp', '#38', 'lt', 'x', '+', '-', '.', '^', '$', '!'), {
    maxLength: 5,
  })
  .map((parts) => `image/x${parts.join('')}`);

const itemArb = fc.record({
  title: text(8),
  link: url('hub.example.com'),
  description: text(20),
  category: fc.constantFrom(...FEED_CATEGORY_CODES),
  creator: text(6),
  author: fc.option(author, { nil: undefined }),
  enclosure: fc.option(
    fc.record({
      url: url('img.example.com'),
      length: fc.option(fc.stringMatching(/^[0-9]{1,9}$/), { nil: undefined }),
      type: fc.option(mimeType, { nil: undefined }),
    }),
    { nil: undefined },
  ),
});

/** Channel settings come from the environment, where surrounding spaces are trimmed. */
const channelText = text(6).filter((s) => s.trim() === s);
const channelArb = fc.record({
  title: channelText,
  description: channelText,
  copyright: channelText,
  link: url('www.example.org'),
});

test('When any text XML 1.0 can carry is published, every field of the item and the channel comes back byte-exact from RSS (two XML parsers) and JSON', async () => {
  await fc.assert(
    fc.asyncProperty(itemArb, channelArb, async (input, channel) => {
      const app = await makeApp(
        db,
        {
          FEED_CHANNEL_TITLE: channel.title,
          FEED_CHANNEL_DESCRIPTION: channel.description,
          FEED_CHANNEL_COPYRIGHT: channel.copyright,
          FEED_CHANNEL_LINK: channel.link,
        },
        { cache: false },
      );
      const posted = await publish(app, { ...input, pubDate: '2026-11-24T00:00:00Z' });
      expect(posted.status).toBe(201);
      try {
        const expectedItem = {
          title: input.title,
          link: input.link,
          author: input.author ?? 'hub@example.com (Hub)',
          description: input.description,
          category: input.category,
          guid: input.link,
          creator: input.creator,
          ...(input.enclosure && {
            enclosure: {
              url: input.enclosure.url,
              length: input.enclosure.length ?? '1',
              type: input.enclosure.type ?? 'application/octet-stream',
            },
          }),
        };
        const expected: ParsedChannel = {
          title: channel.title,
          link: channel.link,
          description: channel.description,
          language: 'ko',
          copyright: channel.copyright,
          item: [expectedItem],
        };

        const json = (await getFeed(app, '/hub/contents')).body.channel;
        const { lastBuildDate: _l, ...jsonChannel } = json;
        const { pubDate: _p, ...jsonItem } = json.item[0];
        expect({ ...jsonChannel, item: [jsonItem] }).toEqual(expected);

        const xml = (await getFeed(app, '/hub/contents', ACCEPT_XML)).text;
        expect(parseWithDom(xml)).toEqual(expected);
        expect(await parseWithRssParser(xml)).toEqual(expected);
      } finally {
        await request(app)
          .delete(`/hub/contents/${posted.body.id}`)
          .set('Authorization', `Bearer ${WRITE_TOKEN}`);
      }
    }),
    { numRuns: 150 },
  );
});
