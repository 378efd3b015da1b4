import { spawnSync } from 'node:child_process';
import Parser from 'rss-parser';
import request from 'supertest';
import { FEED_CATEGORY_CODES, FEED_DEFAULTS } from '@hub/contracts';
import { BASE_URL, insertRows, makeApp, useDatabase } from './helpers/harness';
import {
  ACCEPT_JSON,
  ACCEPT_XML,
  CHANNEL_KEYS,
  getFeed,
  item,
  ITEM_KEYS,
  publish,
  TYPE_JSON,
  TYPE_XML,
} from './helpers/requests';
import { READ_TOKEN } from './helpers/tokens';

const RFC822 =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} (GMT|[+-]\d{4})$/;
const parser = new Parser({ customFields: { item: ['author', 'category', 'description'] } });

/** Text that breaks naive XML or JSON: Korean, emoji, markup characters, a CDATA end. */
const TRICKY = {
  title: '한글 제목 😀 <b>굵게</b> & "따옴표" \'s\' ]]> 끝',
  link: "https://hub.example.com/a?x=1&y=%3C2%3E&z=%5D%5D%3E&w=('q')",
  description: '<p>설명 & 내용</p> ]]> <![CDATA[ x ]]> 🍜🇰🇷 \t탭\n줄바꿈',
  category: 'food',
  creator: '홍길동 <hong> & 친구들 ]]>',
  author: 'writer@example.com (작가 <&> ]]>)',
  enclosure: { url: 'https://img.example.com/p.jpg?a=1&b=2', length: '12345', type: 'image/jpeg' },
};

/**
 * Checks that need a tool this machine may not have are chosen when the tests are defined:
 * without the tool they show as skipped, with the reason in their name and a warning,
 * never as a pass.
 */
const W3C_SRC = process.env.W3C_FEEDVALIDATOR_SRC; // a checkout's src/ (github.com/w3c/feedvalidator); python3 with lxml and html5lib
const W3C_SKIP = ' (skipped: W3C_FEEDVALIDATOR_SRC is not set)';
const w3cTest = W3C_SRC ? test : test.skip;
const XMLLINT = spawnSync('xmllint', ['--version']).error === undefined;
const XMLLINT_SKIP = ' (skipped: xmllint is not installed)';
const xmllintTest = XMLLINT ? test : test.skip;
for (const [ran, what] of [
  [W3C_SRC !== undefined, `W3C feed validator test${W3C_SKIP}`],
  [XMLLINT, `xmllint test${XMLLINT_SKIP}`],
] as const)
  if (!ran) console.warn(what);

const db = useDatabase({ emptyEachTest: true });

describe('JSON format', () => {
  test('When asked for JSON, GET /hub/contents answers the exact channel/item shape with defaults filled in', async () => {
    const app = await makeApp(db, {}, { cache: false });
    const posted = await publish(
      app,
      item({ enclosure: { url: 'https://img.example.com/1.jpg' } }),
    );
    expect(posted.status).toBe(201);
    const res = await getFeed(app, '/hub/contents');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(TYPE_JSON);
    const channel = res.body.channel;
    expect(Object.keys(res.body)).toEqual(['channel']);
    expect(Object.keys(channel)).toEqual([...CHANNEL_KEYS, 'item']);
    expect(channel).toMatchObject({
      title: FEED_DEFAULTS.channel.title,
      link: BASE_URL,
      description: FEED_DEFAULTS.channel.description,
      language: 'ko',
      copyright: FEED_DEFAULTS.channel.copyright,
    });
    expect(channel.lastBuildDate).toMatch(RFC822);
    expect(channel.item).toEqual([
      {
        title: '서울의 가을 산책길',
        link: 'https://hub.example.com/contents/1',
        author: 'hub@example.com (Hub)',
        description: '단풍이 아름다운 산책 코스를 소개합니다.',
        category: 'trip',
        pubDate: 'Mon, 23 Nov 2026 05:26:57 GMT',
        guid: 'https://hub.example.com/contents/1',
        creator: '김하늘',
        enclosure: {
          url: 'https://img.example.com/1.jpg',
          length: '1',
          type: 'application/octet-stream',
        },
      },
    ]);
  });

  test('When an item has no enclosure, the JSON item has no enclosure member', async () => {
    const app = await makeApp(db, {}, { cache: false });
    await publish(app, item());
    const res = await getFeed(app, '/hub/contents');
    expect(Object.keys(res.body.channel.item[0])).toEqual([...ITEM_KEYS, 'creator']);
  });

  test('When nothing is published, the feed is a channel with an empty item array', async () => {
    const app = await makeApp(db, {}, { cache: false });
    const res = await getFeed(app, '/hub/contents');
    expect(res.status).toBe(200);
    expect(res.body.channel.item).toEqual([]);
  });

  test('When text holds Korean, emoji, <, & and ]]>, JSON gives every field back byte-exact', async () => {
    const app = await makeApp(db, {}, { cache: false });
    expect((await publish(app, item(TRICKY))).status).toBe(201);
    const res = await getFeed(app, '/hub/contents');
    const got = res.body.channel.item[0];
    for (const f of ['title', 'link', 'description', 'category', 'creator', 'author'] as const)
      expect(got[f]).toBe(TRICKY[f]);
    expect(got.guid).toBe(TRICKY.link);
    expect(got.enclosure).toEqual(TRICKY.enclosure);
    // the raw bytes are UTF-8, not \u escapes
    expect(res.text).toContain('😀');
    expect(Buffer.from(res.text, 'utf8').includes(Buffer.from('한글 제목', 'utf8'))).toBe(true);
  });
});

describe('RSS format', () => {
  test('When asked for XML, GET /hub/contents answers RSS 2.0 that a real RSS parser reads with every field', async () => {
    const app = await makeApp(db, {}, { cache: false });
    await publish(
      app,
      item({
        enclosure: { url: 'https://img.example.com/1.jpg', length: 2048, type: 'image/png' },
      }),
    );
    const res = await getFeed(app, '/hub/contents', ACCEPT_XML);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(TYPE_XML);
    const feed = await parser.parseString(res.text);
    expect(feed.title).toBe(FEED_DEFAULTS.channel.title);
    expect(feed.link).toBe(BASE_URL);
    expect(feed.description).toBe(FEED_DEFAULTS.channel.description);
    expect(feed.language).toBe('ko');
    expect(feed.copyright).toBe(FEED_DEFAULTS.channel.copyright);
    expect(feed.lastBuildDate).toMatch(RFC822);
    expect(feed.items).toHaveLength(1);
    const it = feed.items[0]!;
    expect(it.title).toBe('서울의 가을 산책길');
    expect(it.link).toBe('https://hub.example.com/contents/1');
    expect(it.guid).toBe('https://hub.example.com/contents/1');
    expect(it.author).toBe('hub@example.com (Hub)');
    expect(it.creator).toBe('김하늘');
    expect(it.pubDate).toBe('Mon, 23 Nov 2026 05:26:57 GMT');
    expect(it.categories).toEqual(['trip']);
    expect(it.enclosure).toEqual({
      url: 'https://img.example.com/1.jpg',
      length: '2048',
      type: 'image/png',
    });
  });

  test('When XML is served, it declares the dc and atom namespaces and links to itself', async () => {
    const app = await makeApp(db, {}, { cache: false });
    await publish(app, item());
    const all = await getFeed(app, '/hub/contents', ACCEPT_XML);
    expect(
      all.text.startsWith(
        '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom"><channel>',
      ),
    ).toBe(true);
    expect(all.text).toContain(
      `<atom:link href="${BASE_URL}/hub/contents" rel="self" type="application/rss+xml"/>`,
    );
    expect(all.text).toContain('<dc:creator>김하늘</dc:creator>');
    const trip = await getFeed(
      app,
      '/hub/categories/trip/contents?access_token=' + READ_TOKEN,
      ACCEPT_XML,
    ).unset('Authorization');
    expect(trip.text).toContain(
      `<atom:link href="${BASE_URL}/hub/categories/trip/contents" rel="self" type="application/rss+xml"/>`,
    );
  });

  test('When text holds Korean, emoji, <, & and ]]>, RSS escapes it and a parser gives every field back byte-exact', async () => {
    const app = await makeApp(db, {}, { cache: false });
    expect((await publish(app, item(TRICKY))).status).toBe(201);
    const res = await getFeed(app, '/hub/contents', ACCEPT_XML);
    // exact serialisation: escaped text, never a raw ]]> or <
    expect(res.text).toContain(
      '<title>한글 제목 😀 &lt;b&gt;굵게&lt;/b&gt; &amp; "따옴표" \'s\' ]]&gt; 끝</title>',
    );
    expect(res.text).toContain(
      "<link>https://hub.example.com/a?x=1&amp;y=%3C2%3E&amp;z=%5D%5D%3E&amp;w=('q')</link>",
    );
    expect(res.text).toContain('<dc:creator>홍길동 &lt;hong&gt; &amp; 친구들 ]]&gt;</dc:creator>');
    expect(res.text).toContain(
      '<enclosure url="https://img.example.com/p.jpg?a=1&amp;b=2" length="12345" type="image/jpeg"/>',
    );
    const feed = await parser.parseString(res.text);
    const it = feed.items[0]! as unknown as Record<string, unknown>;
    expect(it.title).toBe(TRICKY.title);
    expect(it.link).toBe(TRICKY.link);
    expect(it.guid).toBe(TRICKY.link);
    expect(it.creator).toBe(TRICKY.creator);
    expect(it.author).toBe(TRICKY.author);
    expect(it.description).toBe(TRICKY.description);
    expect(it.enclosure).toEqual(TRICKY.enclosure);
  });

  test('When text is entity-like (&amp;, &lt;, &#38;, &quot;), RSS escapes its & so a parser gives the literal text back', async () => {
    const app = await makeApp(db, {}, { cache: false });
    const text = 'Tom &amp; Jerry &lt;b&gt; &#38; &#x26; &quot;q&quot; &nbsp;';
    const link = 'https://hub.example.com/a?x=1&amp;y=2&#38;z';
    const author = 'a&amp;b@example.com (&lt;편집부&gt;)';
    const enclosure = { url: `${link}.jpg`, length: '1', type: 'image/x&amp' };
    expect(
      (
        await publish(
          app,
          item({ title: text, description: text, creator: text, author, link, enclosure }),
        )
      ).status,
    ).toBe(201);
    const res = await getFeed(app, '/hub/contents', ACCEPT_XML);
    expect(res.text).toContain(
      '<title>Tom &amp;amp; Jerry &amp;lt;b&amp;gt; &amp;#38; &amp;#x26; &amp;quot;q&amp;quot; &amp;nbsp;</title>',
    );
    const it = (await parser.parseString(res.text)).items[0]! as unknown as Record<string, unknown>;
    expect(it).toMatchObject({
      title: text,
      description: text,
      creator: text,
      author,
      link,
      guid: link,
      enclosure,
    });
  });

  test('When a row written straight into the table holds markup in every field, both formats still give it back byte-exact', async () => {
    const weird = '카테고리 <x> & ]]> 😀';
    await db.pool.query(
      `INSERT INTO feed_items (title, link, description, category, creator, author, pub_date, enclosure_url, enclosure_length, enclosure_type)
       VALUES ($1, $1, $1, $1, $1, $1, now(), $1, $1, $1)`,
      [weird],
    );
    const app = await makeApp(db, {}, { cache: false });
    const json = (await getFeed(app, '/hub/contents')).body.channel.item[0];
    expect(json).toEqual({
      title: weird,
      link: weird,
      author: weird,
      description: weird,
      category: weird,
      pubDate: expect.stringMatching(RFC822),
      guid: weird,
      creator: weird,
      enclosure: { url: weird, length: weird, type: weird },
    });
    const xml = (await parser.parseString((await getFeed(app, '/hub/contents', ACCEPT_XML)).text))
      .items[0] as unknown as Record<string, unknown>;
    expect(xml).toMatchObject({
      title: weird,
      link: weird,
      author: weird,
      description: weird,
      guid: weird,
      creator: weird,
      categories: [weird],
      enclosure: { url: weird, length: weird, type: weird },
    });
  });

  test('When a row written straight into the table holds a control character, RSS shows U+FFFD and stays well-formed', async () => {
    await db.pool.query(
      `INSERT INTO feed_items (title, link, description, category, creator, pub_date) VALUES ($1, 'https://a.example.com/', 'd', 'it', 'c', now())`,
      ['bell\u0007 and escape\u001b'],
    );
    const app = await makeApp(db, {}, { cache: false });
    const res = await getFeed(app, '/hub/contents', ACCEPT_XML);
    expect(res.text).toContain('<title>bell\uFFFD and escape\uFFFD</title>');
    expect((await parser.parseString(res.text)).items[0]!.title).toBe(
      'bell\uFFFD and escape\uFFFD',
    );
    expect((await getFeed(app, '/hub/contents')).body.channel.item[0].title).toBe(
      'bell\u0007 and escape\u001b',
    );
  });

  w3cTest(
    `When W3C_FEEDVALIDATOR_SRC points at the W3C feed validator, it reports no errors for the RSS${W3C_SRC ? '' : W3C_SKIP}`,
    async () => {
      const src = W3C_SRC!;
      const app = await makeApp(db, {}, { cache: false });
      expect((await publish(app, item(TRICKY))).status).toBe(201);
      expect(
        (await publish(app, item({ enclosure: { url: 'https://img.example.com/1.jpg' } }))).status,
      ).toBe(201);
      const entityLike = 'Tom &amp; Jerry &#38; &lt;b&gt;\r\nnext line\r';
      expect(
        (
          await publish(
            app,
            item({
              link: 'https://hub.example.com/a?x=1&amp;y=2',
              title: entityLike,
              description: entityLike,
              creator: entityLike,
              category: 'food',
            }),
          )
        ).status,
      ).toBe(201);
      for (const path of [
        '/hub/contents',
        '/hub/categories/food/contents',
        '/hub/categories/biz/contents',
      ]) {
        const res = await getFeed(app, path, ACCEPT_XML);
        const script = [
          'import sys; sys.path.insert(0, sys.argv[1])',
          'import feedvalidator',
          'from feedvalidator import compatibility, logging',
          'events = compatibility.AA(feedvalidator.validateString(sys.stdin.buffer.read(), firstOccurrenceOnly=0, base=sys.argv[2])["loggedEvents"])',
          'print("\\n".join(type(e).__name__ for e in events if isinstance(e, logging.Error)))',
        ].join('\n');
        const run = spawnSync(
          process.env.W3C_FEEDVALIDATOR_PYTHON ?? 'python3',
          ['-c', script, src, `${BASE_URL}${path}`],
          { input: res.text },
        );
        expect(run.stderr.toString()).toBe('');
        expect(run.stdout.toString().trim()).toBe('');
      }
    },
  );

  xmllintTest(
    `When xmllint is installed, the RSS document is well-formed XML to it${XMLLINT ? '' : XMLLINT_SKIP}`,
    async () => {
      const app = await makeApp(db, {}, { cache: false });
      expect((await publish(app, item(TRICKY))).status).toBe(201);
      const res = await getFeed(app, '/hub/contents', ACCEPT_XML);
      const run = spawnSync('xmllint', ['--noout', '-'], { input: res.text });
      expect(run.stderr.toString()).toBe('');
      expect(run.status).toBe(0);
    },
  );
});

describe('channel', () => {
  test('When channel settings are configured, both formats show them instead of the defaults', async () => {
    const app = await makeApp(
      db,
      {
        FEED_CHANNEL_TITLE: 'My Hub <&>',
        FEED_CHANNEL_LINK: 'https://www.example.org/',
        FEED_CHANNEL_DESCRIPTION: 'Newest things',
        FEED_CHANNEL_LANGUAGE: 'en-US',
        FEED_CHANNEL_COPYRIGHT: '© 2026 Example',
        FEED_AUTHOR_EMAIL: 'news@example.org',
        FEED_PROVIDER_NAME: 'Example News',
      },
      { cache: false },
    );
    await publish(app, item());
    const json = (await getFeed(app, '/hub/contents')).body.channel;
    expect(json).toMatchObject({
      title: 'My Hub <&>',
      link: 'https://www.example.org',
      description: 'Newest things',
      language: 'en-US',
      copyright: '© 2026 Example',
    });
    expect(json.item[0].author).toBe('news@example.org (Example News)');
    const xml = await parser.parseString((await getFeed(app, '/hub/contents', ACCEPT_XML)).text);
    expect(xml).toMatchObject({
      title: 'My Hub <&>',
      link: 'https://www.example.org',
      description: 'Newest things',
      language: 'en-US',
      copyright: '© 2026 Example',
    });
  });

  test('When the clock reads a given time, lastBuildDate is that time in RFC 822', async () => {
    const at = Date.UTC(2026, 10, 23, 5, 26, 57, 400);
    const app = await makeApp(db, {}, { cache: false, clock: () => at });
    expect((await getFeed(app, '/hub/contents')).body.channel.lastBuildDate).toBe(
      'Mon, 23 Nov 2026 05:26:57 GMT',
    );
    expect(
      (await parser.parseString((await getFeed(app, '/hub/contents', ACCEPT_XML)).text))
        .lastBuildDate,
    ).toBe('Mon, 23 Nov 2026 05:26:57 GMT');
  });

  test('When an item was published with an offset, pubDate is the same instant in RFC 822 GMT', async () => {
    const app = await makeApp(db, {}, { cache: false });
    await publish(app, item({ pubDate: '2026-11-23T14:26:57+09:00' }));
    expect((await getFeed(app, '/hub/contents')).body.channel.item[0].pubDate).toBe(
      'Mon, 23 Nov 2026 05:26:57 GMT',
    );
  });
});

describe('selection and order', () => {
  test('When more than 100 items exist, GET /hub/contents answers the latest 100, newest pubDate first', async () => {
    await insertRows(db.pool, 150, { category: 'it' });
    const app = await makeApp(db, {}, { cache: false });
    const items = (await getFeed(app, '/hub/contents')).body.channel.item as {
      title: string;
      pubDate: string;
    }[];
    expect(items).toHaveLength(100);
    expect(items[0]!.title).toBe('row 150');
    expect(items[99]!.title).toBe('row 51');
    const times = items.map((i) => Date.parse(i.pubDate));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const xml = await parser.parseString((await getFeed(app, '/hub/contents', ACCEPT_XML)).text);
    expect(xml.items).toHaveLength(100);
    expect(xml.items[0]!.title).toBe('row 150');
  });

  test('When items have the same pubDate, the later published comes first', async () => {
    const app = await makeApp(db, {}, { cache: false });
    await publish(app, item({ title: 'first', link: 'https://hub.example.com/first' }));
    await publish(app, item({ title: 'second', link: 'https://hub.example.com/second' }));
    expect(
      (await getFeed(app, '/hub/contents')).body.channel.item.map(
        (i: { title: string }) => i.title,
      ),
    ).toEqual(['second', 'first']);
  });

  test('When a category is asked for, only its items come back, the latest 100 of it', async () => {
    await insertRows(db.pool, 120, { category: 'life', prefix: 'life' });
    await insertRows(db.pool, 30, { category: 'biz', prefix: 'biz', base: '2027-01-01T00:00:00Z' });
    const app = await makeApp(db, {}, { cache: false });
    const life = (await getFeed(app, '/hub/categories/life/contents')).body.channel.item as {
      category: string;
      title: string;
    }[];
    expect(life).toHaveLength(100);
    expect(life.every((i) => i.category === 'life')).toBe(true);
    expect(life[0]!.title).toBe('life 120');
    const biz = (await getFeed(app, '/hub/categories/biz/contents', ACCEPT_XML)).text;
    expect((await parser.parseString(biz)).items).toHaveLength(30);
    const all = (await getFeed(app, '/hub/contents')).body.channel.item as { category: string }[];
    expect(all.slice(0, 30).every((i) => i.category === 'biz')).toBe(true);
    for (const code of FEED_CATEGORY_CODES)
      expect((await getFeed(app, `/hub/categories/${code}/contents`)).status).toBe(200);
    expect((await getFeed(app, '/hub/categories/food/contents')).body.channel.item).toEqual([]);
  });

  test('When the category code is unknown, GET /hub/categories/{code}/contents answers 422', async () => {
    const app = await makeApp(db);
    for (const code of ['movies', 'IT', '%ED%95%9C']) {
      const res = await getFeed(app, `/hub/categories/${code}/contents`);
      expect(res.status).toBe(422);
      expect(res.body.error.status).toBe(422);
      expect(res.body.error.message).toMatch(
        /^invalid parameter or missing required value: category_code must be one of life, culture, trip, it, food, biz$/,
      );
    }
  });
});

describe('HEAD', () => {
  test('When HEAD is sent, the headers equal those of GET and there is no body', async () => {
    const at = Date.UTC(2026, 0, 2, 3, 4, 5);
    const app = await makeApp(db, {}, { clock: () => at });
    await publish(app, item());
    for (const accept of [ACCEPT_JSON, ACCEPT_XML]) {
      const get = await getFeed(app, '/hub/contents', accept);
      const head = await request(app)
        .head('/hub/contents')
        .set('Authorization', `Bearer ${READ_TOKEN}`)
        .set('Accept', accept);
      expect(head.status).toBe(200);
      expect(head.text ?? '').toBe('');
      const strip = (h: Record<string, string>) => ({
        ...h,
        date: undefined,
        'x-request-id': undefined,
      });
      expect(strip(head.headers)).toEqual(strip(get.headers));
    }
  });
});
