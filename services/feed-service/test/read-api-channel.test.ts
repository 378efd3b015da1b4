import request from 'supertest';
import { getFeed, item, makeApp, publish, useDatabase } from './helpers/harness';
import { ACCEPT_JSON, ACCEPT_XML } from './helpers/requests';
import { READ_TOKEN } from './helpers/tokens';
import { rssParser as parser } from './rss-reading';

const db = useDatabase({ emptyEachTest: true });

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
