import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FEED_ERRORS } from '@hub/contracts';
import { runMigrations } from '@hub/service-kit';
import { createTestDatabase } from '@hub/testing';
import { BASE_URL, makeApp, useDatabase } from './helpers/harness';
import { getFeed, item, publish, put } from './helpers/requests';

const db = useDatabase({ emptyEachTest: true });

const MIGRATIONS = path.join(__dirname, '..', 'migrations');
const conflict = FEED_ERRORS.linkConflict;
const location = (id: string) => `${BASE_URL}/hub/contents/${id}`;

async function rows(): Promise<{ id: string; link: string; title: string }[]> {
  return (await db.pool.query('SELECT id::text, link, title FROM feed_items ORDER BY id')).rows;
}
describe('the link identifies an item', () => {
  test('When the same item is posted again (a retry), POST answers 200 with the existing item and its Location, and the feed holds it once', async () => {
    const app = await makeApp(db);
    const first = await publish(app, item());
    expect(first.status).toBe(201);
    const again = await publish(app, item());
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.location).toBe(location(first.body.id));
    const feed = (await getFeed(app, '/hub/contents')).body.channel.item;
    expect(feed.map((i: { guid: string }) => i.guid)).toEqual([item().link]);
  });

  test('When a retry leaves pubDate out again, it is still the same item (pubDate defaults to the first publication)', async () => {
    let now = Date.UTC(2026, 10, 24, 1, 0, 0);
    const app = await makeApp(db, {}, { clock: () => now });
    const { pubDate: _omitted, ...withoutDate } = item();
    const first = await publish(app, withoutDate);
    now += 30_000; // the retry comes after a timeout
    const again = await publish(app, withoutDate);
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body.pubDate).toBe(first.body.pubDate);
  });

  test('When a posted link exists with other content, POST answers 409 with the contract text and the Location of the existing item, and changes nothing', async () => {
    const app = await makeApp(db);
    const first = await publish(app, item());
    for (const change of [
      { title: '다른 제목' },
      { description: '다른 설명' },
      { category: 'food' },
      { creator: '다른 사람' },
      { author: 'x@example.com' },
      { pubDate: '2026-11-24T00:00:00Z' },
      { enclosure: { url: 'https://img.example.com/1.jpg' } },
    ]) {
      const res = await publish(app, item(change));
      expect([change, res.status]).toEqual([change, 409]);
      expect(res.headers.location).toBe(location(first.body.id));
      expect(res.body).toEqual({ error: { status: 409, message: conflict.text } });
    }
    expect(await rows()).toEqual([{ id: first.body.id, link: item().link, title: item().title }]);
  });

  test('When the existing item has an enclosure, a retry with the same enclosure is 200 and one with another length is 409', async () => {
    const app = await makeApp(db);
    const enclosure = { url: 'https://img.example.com/1.jpg', length: 10, type: 'image/jpeg' };
    expect((await publish(app, item({ enclosure }))).status).toBe(201);
    expect((await publish(app, item({ enclosure: { ...enclosure, length: '10' } }))).status).toBe(
      200,
    );
    expect((await publish(app, item({ enclosure: { ...enclosure, length: 11 } }))).status).toBe(
      409,
    );
  });

  test('When many POSTs of one link race (two instances, some identical, some not), exactly one item results and the others get 200 or 409, never 500', async () => {
    const apps = [await makeApp(db), await makeApp(db)];
    for (let round = 0; round < 3; round++) {
      await db.pool.query('TRUNCATE feed_items, feed_state');
      const link = `https://hub.example.com/race/${round}`;
      const bodies = Array.from({ length: 12 }, (_, i) =>
        item({ link, title: i % 3 === 0 ? `제목 ${i}` : '같은 제목' }),
      );
      const answers = await Promise.all(bodies.map((b, i) => publish(apps[i % 2]!, b)));
      const stored = await rows();
      expect(stored).toHaveLength(1);
      const statuses = answers.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      answers.forEach((res, i) => {
        expect(res.headers.location).toBe(location(stored[0]!.id));
        // the same content as the stored item: created it or a safe retry; else a conflict
        const same = bodies[i]!.title === stored[0]!.title;
        expect([i, res.status]).toEqual([i, same ? (res.status === 201 ? 201 : 200) : 409]);
      });
      expect(statuses.every((s) => s === 201 || s === 200 || s === 409)).toBe(true);
    }
  });

  test("When PUT would give an item another item's link, it answers 409 with that item's Location and changes nothing", async () => {
    const app = await makeApp(db);
    const a = await publish(app, item({ link: 'https://hub.example.com/a' }));
    const b = await publish(app, item({ link: 'https://hub.example.com/b' }));
    const res = await put(app, b.body.id, item({ link: 'https://hub.example.com/a', title: 'B' }));
    expect(res.status).toBe(409);
    expect(res.headers.location).toBe(location(a.body.id));
    expect(res.body).toEqual({ error: { status: 409, message: conflict.text } });
    expect((await rows()).map((r) => r.link)).toEqual([
      'https://hub.example.com/a',
      'https://hub.example.com/b',
    ]);
    // its own link, or a free one, is fine
    expect((await put(app, b.body.id, item({ link: 'https://hub.example.com/b' }))).status).toBe(
      200,
    );
    expect((await put(app, b.body.id, item({ link: 'https://hub.example.com/c' }))).status).toBe(
      200,
    );
  });

  test('When two PUTs race to move two items to one free link, one gets 200 and the other 409, never 500', async () => {
    const app = await makeApp(db);
    const ids: string[] = [];
    for (const n of [1, 2, 3, 4])
      ids.push((await publish(app, item({ link: `https://hub.example.com/${n}` }))).body.id);
    const answers = await Promise.all(
      ids.map((id) => put(app, id, item({ link: 'https://hub.example.com/free' }))),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    expect((await rows()).filter((r) => r.link === 'https://hub.example.com/free')).toHaveLength(1);
  });
});

describe('the migration adding the unique link', () => {
  test('When the table already holds one link several times, the migration keeps the newest row of each link and marks their feeds changed', async () => {
    // a database at the first migration only, as a deployed service has it
    const onlyFirst = fs.mkdtempSync(path.join(os.tmpdir(), 'feed-migrations-'));
    const [first] = fs.readdirSync(MIGRATIONS).sort();
    fs.copyFileSync(path.join(MIGRATIONS, first!), path.join(onlyFirst, first!));
    const old = await createTestDatabase({
      migrationsDir: onlyFirst,
      migrationsTable: 'feed_migrations',
    });
    try {
      await old.pool.query(
        `INSERT INTO feed_items (title, link, description, category, creator, pub_date, updated_at) VALUES
           ('a old', 'https://hub.example.com/a', 'd', 'it', 'c', now(), now() - interval '2 hours'),
           ('a new', 'https://hub.example.com/a', 'd', 'food', 'c', now(), now() - interval '1 hour'),
           ('a mid', 'https://hub.example.com/a', 'd', 'it', 'c', now(), now() - interval '90 minutes'),
           ('b', 'https://hub.example.com/b', 'd', 'biz', 'c', now(), now()),
           ('tie 1', 'https://hub.example.com/t', 'd', 'life', 'c', now(), '2026-01-01Z'),
           ('tie 2', 'https://hub.example.com/t', 'd', 'life', 'c', now(), '2026-01-01Z')`,
      );
      await runMigrations({
        databaseUrl: old.url,
        dir: MIGRATIONS,
        table: 'feed_migrations',
      });
      const left = await old.pool.query('SELECT title FROM feed_items ORDER BY link');
      expect(left.rows.map((r) => r.title)).toEqual(['a new', 'b', 'tie 2']);
      const changed = await old.pool.query('SELECT feed FROM feed_state ORDER BY feed');
      expect(changed.rows.map((r) => r.feed)).toEqual(['all', 'it', 'life']);
      await expect(
        old.pool.query(
          `INSERT INTO feed_items (title, link, description, category, creator, pub_date)
           VALUES ('x', 'https://hub.example.com/b', 'd', 'it', 'c', now())`,
        ),
      ).rejects.toMatchObject({ code: '23505' });
    } finally {
      await old.drop();
      fs.rmSync(onlyFirst, { recursive: true, force: true });
    }
  });
});
