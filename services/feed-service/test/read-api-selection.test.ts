import { FEED_CATEGORY_CODES } from '@hub/contracts';
import { getFeed, insertRows, item, makeApp, publish, useDatabase } from './helpers/harness';
import { ACCEPT_XML } from './helpers/requests';
import { rssParser as parser } from './rss-reading';

const db = useDatabase({ emptyEachTest: true });

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
