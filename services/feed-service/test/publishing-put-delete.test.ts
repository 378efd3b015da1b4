import { del, getFeed, item, makeApp, publish, put, useDatabase } from './helpers/harness';

const db = useDatabase({ emptyEachTest: true });

describe('PUT and DELETE /hub/contents/{id}', () => {
  test('When an item is replaced, PUT answers 200 with the new item, and the feeds of both categories change', async () => {
    const app = await makeApp(db);
    const { body: created } = await publish(
      app,
      item({
        category: 'it',
        author: 'a@example.com',
        enclosure: { url: 'https://img.example.com/a.png' },
      }),
    );
    await getFeed(app, '/hub/categories/it/contents'); // cached
    const res = await put(app, created.id, item({ title: '바뀐 제목', category: 'food' }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: created.id,
      title: '바뀐 제목',
      category: 'food',
      author: 'hub@example.com (Hub)',
    });
    expect(res.body.enclosure).toBeUndefined(); // full replacement: omitted optional fields are gone
    expect((await getFeed(app, '/hub/categories/it/contents')).body.channel.item).toEqual([]);
    expect((await getFeed(app, '/hub/categories/food/contents')).body.channel.item[0].title).toBe(
      '바뀐 제목',
    );
  });

  test('When the id is unknown or not a number, PUT and DELETE answer 404', async () => {
    const app = await makeApp(db);
    for (const id of ['999999', 'abc', '0', '99999999999999999999']) {
      expect([id, (await put(app, id, item())).status]).toEqual([id, 404]);
      expect([id, (await del(app, id)).status]).toEqual([id, 404]);
    }
  });

  test('When PUT carries a bad item, it answers 422 and the stored item is unchanged', async () => {
    const app = await makeApp(db);
    const { body: created } = await publish(app, item());
    const res = await put(app, created.id, item({ link: 'nope' }));
    expect(res.status).toBe(422);
    expect((await getFeed(app, '/hub/contents')).body.channel.item[0].link).toBe(
      'https://hub.example.com/contents/1',
    );
  });

  test('When an item is deleted, DELETE answers 204 and the item leaves the feeds', async () => {
    const app = await makeApp(db);
    const { body: created } = await publish(app, item());
    await getFeed(app, '/hub/contents'); // cached
    const res = await del(app, created.id);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await getFeed(app, '/hub/contents')).body.channel.item).toEqual([]);
    expect((await del(app, created.id)).status).toBe(404);
  });
});
