import { FEED_DEFAULTS } from '@hub/contracts';
import { BASE_URL, getFeed, item, makeApp, publish, useDatabase } from './helpers/harness';
import { ACCEPT_XML, RFC822, TRICKY, TYPE_XML } from './helpers/requests';
import { READ_TOKEN } from './helpers/tokens';
import { rssParser as parser } from './rss-reading';

const db = useDatabase({ emptyEachTest: true });

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
});
