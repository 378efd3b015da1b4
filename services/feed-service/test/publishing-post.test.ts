import { parsePubDate } from '../src/domain/dates';
import { BASE_URL, getFeed, item, makeApp, publish, useDatabase, write } from './helpers/harness';
import { TYPE_JSON } from './helpers/requests';

const db = useDatabase({ emptyEachTest: true });

describe('POST /hub/contents', () => {
  test('When a valid item is posted with a hub:write token, it answers 201 with the stored item and a Location', async () => {
    const app = await makeApp(db);
    const res = await publish(
      app,
      item({
        author: 'editor@example.com (편집부)',
        enclosure: { url: 'https://img.example.com/a.png', length: 5120, type: 'image/png' },
      }),
    );
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe(TYPE_JSON);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      title: '서울의 가을 산책길',
      link: 'https://hub.example.com/contents/1',
      author: 'editor@example.com (편집부)',
      description: '단풍이 아름다운 산책 코스를 소개합니다.',
      category: 'trip',
      pubDate: 'Mon, 23 Nov 2026 05:26:57 GMT',
      guid: 'https://hub.example.com/contents/1',
      creator: '김하늘',
      enclosure: { url: 'https://img.example.com/a.png', length: '5120', type: 'image/png' },
    });
    expect(Object.keys(res.body)[0]).toBe('id');
    expect(res.headers.location).toBe(`${BASE_URL}/hub/contents/${res.body.id}`);
    const feed = await getFeed(app, '/hub/categories/trip/contents');
    const { id: _id, ...shown } = res.body;
    expect(feed.body.channel.item).toEqual([shown]);
  });

  test('When pubDate is left out, the item is published now', async () => {
    const at = Date.UTC(2026, 4, 5, 6, 7, 8);
    const app = await makeApp(db, {}, { clock: () => at });
    const { pubDate: _p, ...rest } = item();
    const res = await publish(app, rest);
    expect(res.status).toBe(201);
    expect(res.body.pubDate).toBe('Tue, 05 May 2026 06:07:08 GMT');
  });

  test('When pubDate is RFC 822 or ISO 8601 in any accepted form, it is stored as that instant', async () => {
    const app = await makeApp(db);
    const forms: [string, string][] = [
      ['Mon, 23 Nov 2026 05:26:57 +0000', 'Mon, 23 Nov 2026 05:26:57 GMT'],
      ['Mon, 23 Nov 2026 14:26:57 +0900', 'Mon, 23 Nov 2026 05:26:57 GMT'],
      ['23 Nov 2026 05:26 GMT', 'Mon, 23 Nov 2026 05:26:00 GMT'],
      ['Mon, 23 Nov 26 00:26:57 EST', 'Mon, 23 Nov 2026 05:26:57 GMT'],
      ['2026-11-23T05:26:57Z', 'Mon, 23 Nov 2026 05:26:57 GMT'],
      ['2026-11-23T14:26:57.123+09:00', 'Mon, 23 Nov 2026 05:26:57 GMT'],
      ['2026-11-23 05:26:57+0000', 'Mon, 23 Nov 2026 05:26:57 GMT'],
    ];
    for (const [sent, shown] of forms) {
      const res = await publish(
        app,
        item({ pubDate: sent, link: `https://hub.example.com/${encodeURIComponent(sent)}` }),
      );
      expect([sent, res.status, res.body.pubDate]).toEqual([sent, 201, shown]);
    }
  });

  test('When the body is JSON with a charset parameter, it is accepted', async () => {
    const app = await makeApp(db);
    const res = await write(app, 'post', '/hub/contents', JSON.stringify(item()), {
      contentType: 'application/json; charset=utf-8',
    });
    expect(res.status).toBe(201);
  });
});

describe('date parsing', () => {
  test('When dates are given in the accepted forms they parse to the right instant, and loose forms are refused', () => {
    expect(parsePubDate('Mon, 23 Nov 2026 05:26:57 GMT')?.toISOString()).toBe(
      '2026-11-23T05:26:57.000Z',
    );
    expect(parsePubDate('mon, 23 nov 2026 05:26:57 pdt')?.toISOString()).toBe(
      '2026-11-23T12:26:57.000Z',
    );
    expect(parsePubDate('23 Nov 99 05:26:57 +0130')?.toISOString()).toBe(
      '1999-11-23T03:56:57.000Z',
    );
    expect(parsePubDate('2026-11-23T05:26:57-05:00')?.toISOString()).toBe(
      '2026-11-23T10:26:57.000Z',
    );
    for (const bad of [
      '2',
      '1 1',
      '2026-11-23',
      'Mon, 32 Nov 2026 05:26:57 GMT',
      '2026-13-01T00:00:00Z',
      '2026-11-23T24:00:00Z',
      '1969-12-31T23:59:59Z',
      '',
    ]) {
      expect([bad, parsePubDate(bad)]).toEqual([bad, undefined]);
    }
  });
});
