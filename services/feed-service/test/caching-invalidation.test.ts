import type request from 'supertest';
import type { FeedApp } from '../src/app';
import { LISTENER_APPLICATION_NAME } from '../src/cache/invalidation';
import { renderFromStore } from '../src/domain/read-feed';
import { getFeed, item, makeApp, publish, settled, until, useDatabase } from './helpers/harness';
import { ACCEPT_XML } from './helpers/requests';

const db = useDatabase({ emptyEachTest: true });

const titles = (res: request.Response) =>
  (res.body.channel.item as { title: string }[]).map((i) => i.title);
const served = (app: FeedApp) => app.fastPathStats.served;

describe('invalidation', () => {
  test('When an item is published, the next read of the same instance shows it', async () => {
    const app = await makeApp(db);
    await publish(app, item({ title: 'one', link: 'https://hub.example.com/one' }));
    expect(titles(await getFeed(app, '/hub/contents'))).toEqual(['one']);
    await publish(app, item({ title: 'two', link: 'https://hub.example.com/two' }));
    expect(titles(await getFeed(app, '/hub/contents'))).toEqual(['two', 'one']);
  });

  test('When an item is published through instance A, instance B (same database) serves the new item', async () => {
    const a = await makeApp(db);
    const b = await makeApp(db);
    await settled([a, b], () =>
      publish(a, item({ title: 'before', link: 'https://hub.example.com/before', category: 'it' })),
    );
    for (const path of ['/hub/contents', '/hub/categories/it/contents']) {
      await getFeed(b, path);
      await getFeed(b, path, ACCEPT_XML);
    }
    const servedBefore = served(b);
    expect(titles(await getFeed(b, '/hub/contents'))).toEqual(['before']);
    expect(served(b)).toBe(servedBefore + 1); // B answers from its cache
    await publish(
      a,
      item({ title: 'after', link: 'https://hub.example.com/after', category: 'it' }),
    );
    await until(async () => titles(await getFeed(b, '/hub/contents'))[0] === 'after');
    expect(titles(await getFeed(b, '/hub/categories/it/contents'))).toEqual(['after', 'before']);
    expect((await getFeed(b, '/hub/contents', ACCEPT_XML)).text).toContain('<title>after</title>');
  });

  test('When a write touches one category, other categories stay cached', async () => {
    const app = await makeApp(db);
    await settled([app], () => publish(app, item({ category: 'life' })));
    await getFeed(app, '/hub/categories/biz/contents');
    const before = served(app);
    await settled([app], () =>
      publish(app, item({ category: 'life', link: 'https://hub.example.com/life/2' })),
    );
    await getFeed(app, '/hub/categories/biz/contents');
    expect(served(app)).toBe(before + 1);
  });

  test('When the LISTEN connection drops, the cache is bypassed, and after reconnecting B again hears A', async () => {
    const a = await makeApp(db);
    const b = await makeApp(db);
    await publish(a, item({ title: 'first', link: 'https://hub.example.com/first' }));
    await getFeed(b, '/hub/contents');
    const connections = b.listener!.connections;
    const { rows } = await db.pool.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()',
      [LISTENER_APPLICATION_NAME],
    );
    expect(rows.length).toBeGreaterThanOrEqual(2); // A's and B's listeners (and other open apps')
    // while it is down nothing stale is served: B reads through to the database
    await publish(a, item({ title: 'second', link: 'https://hub.example.com/second' }));
    await until(async () => titles(await getFeed(b, '/hub/contents'))[0] === 'second');
    await until(
      async () => b.listener!.connections > connections && a.listener!.connections > connections,
    );
    expect(b.context.domain.cache.enabled).toBe(true);
    await getFeed(b, '/hub/contents'); // fill again
    const before = served(b);
    await getFeed(b, '/hub/contents');
    expect(served(b)).toBe(before + 1); // cached again
    const heard = b.listener!.notifications;
    await publish(a, item({ title: 'third', link: 'https://hub.example.com/third' }));
    await until(async () => titles(await getFeed(b, '/hub/contents'))[0] === 'third');
    expect(b.listener!.notifications).toBeGreaterThan(heard);
  });

  test('When a render started before a write finishes after it, the stale rendering is not cached', async () => {
    const app = await makeApp(db);
    await publish(app, item({ title: 'old', link: 'https://hub.example.com/old' }));
    const cache = app.context.domain.cache;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = cache.getOrLoad('all', 'json', async () => {
      const rep = await renderFromStore(app.context.domain, 'all', 'json');
      await gate;
      return rep;
    });
    await publish(app, item({ title: 'new', link: 'https://hub.example.com/new' }));
    release();
    await slow;
    expect(titles(await getFeed(app, '/hub/contents'))).toEqual(['new', 'old']);
  });
});
