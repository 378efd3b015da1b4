import { FEED_DEFAULTS } from '@hub/contracts';
import { BASE_URL, getFeed, item, makeApp, publish, useDatabase } from './helpers/harness';
import { CHANNEL_KEYS, ITEM_KEYS, RFC822, TRICKY, TYPE_JSON } from './helpers/requests';

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
