import express from 'express';
import request from 'supertest';
import sharp from 'sharp';
import type { TestDatabase } from '@hub/testing';
import { createCollection } from '../src/store/collections';
import {
  createThumbnailService,
  thumbnailRouter,
  type ThumbnailServiceImpl,
} from '../src/thumbnails';
import { remove, silentLogger, testDatabase, upsert, waitFor, withTx } from './outbox-fixtures';
import { startImageServer, type ImageServer } from './thumbnails-image-server';

const THUMBNAIL_URL = 'https://search.example.com/thumbnails';

let db: TestDatabase;
let images: ImageServer;
let service: ThumbnailServiceImpl;
const app = express();

function makeService(over: Partial<Parameters<typeof createThumbnailService>[0]> = {}) {
  return createThumbnailService({
    pool: db.pool,
    thumbnailUrl: THUMBNAIL_URL,
    logger: silentLogger,
    allowPrivateNetworks: true,
    fetchTimeoutMs: 1000,
    baseBackoffMs: 20,
    maxAttempts: 3,
    pollIntervalMs: 100,
    ...over,
  });
}

/** The path of a thumbnail URL under the router's mount point. */
function pathOf(url: string): string {
  expect(url.startsWith(`${THUMBNAIL_URL}/`)).toBe(true);
  return `/thumbnails${url.slice(THUMBNAIL_URL.length)}`;
}

async function jobs() {
  const r = await db.pool.query(
    `SELECT image_url, attempts, outcome, last_error, done_at IS NOT NULL AS done FROM thumbnail_jobs ORDER BY id`,
  );
  return r.rows;
}

async function fields(docId: string | number, cid = 'abcd1234') {
  return (await service.resultFields(cid, [String(docId)])).get(String(docId));
}

beforeAll(async () => {
  db = await testDatabase();
  images = await startImageServer();
  app.use('/thumbnails', thumbnailRouter({ pool: db.pool }));
});
afterAll(async () => {
  await images.close();
  await db.drop();
});
beforeEach(async () => {
  await db.pool.query('TRUNCATE thumbnail_jobs, thumbnails');
  images.hits.clear();
  service = makeService();
});
afterEach(async () => {
  await service.stop();
});

describe('the thumbnail of a document', () => {
  test('When a document with an image is added, a working 130X130 thumbnail URL is in its result fields within 5 s', async () => {
    service.start();
    const started = Date.now();
    await withTx(db.pool, (tx) =>
      service.recordChange(
        tx,
        upsert({ dockey: 'a', docId: 1, version: 1, image: `${images.url}/a.jpg` }),
      ),
    );
    const addMs = Date.now() - started;
    const waited = await waitFor(async () => (await fields(1)) !== undefined, 5000, 10);
    const f = (await fields(1))!;
    console.log(
      `thumbnail: write transaction ${addMs} ms, thumbnail URL in results after ${waited} ms`,
    );

    const url = f.archive_thumbnail_130X130!;
    expect(url).toMatch(
      /^https:\/\/search\.example\.com\/thumbnails\/cse_abcd1234\/130X130\/[A-Za-z0-9_-]{43}$/,
    );
    expect(f).toEqual({
      archive_thumbnail_130X130: url,
      archive_thumbnail: url,
      archive_image_size_list: `${images.url}/a.jpg 800X600`,
    });

    const res = await request(app).get(pathOf(url)).buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const key = url.split('/').at(-1)!;
    expect(res.headers.etag).toBe(`"${key}"`);
    const meta = await sharp(res.body as Buffer).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 130, 97]);

    const again = await request(app).get(pathOf(url)).set('If-None-Match', `"${key}"`);
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(`"${key}"`);
    const head = await request(app).head(pathOf(url));
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String((res.body as Buffer).length));
  });

  test('When the add commits, the thumbnail is not waited for: nothing is fetched inside the transaction', async () => {
    await withTx(db.pool, (tx) =>
      service.recordChange(
        tx,
        upsert({ dockey: 'a', docId: 1, version: 1, image: `${images.url}/slow.jpg?ms=2000` }),
      ),
    );
    expect(images.hits.size).toBe(0);
    expect(await jobs()).toMatchObject([{ done: false, attempts: 0 }]);
    expect(await fields(1)).toBeUndefined();
  });

  test('When a thumbnail URL is unknown or malformed, the router answers 404', async () => {
    for (const path of [
      `/thumbnails/cse_abcd1234/130X130/${'A'.repeat(43)}`,
      '/thumbnails/cse_abcd1234/130X130/short',
      '/thumbnails/cse_abcd1234/big/' + 'A'.repeat(43),
      '/thumbnails/abcd1234/130X130/' + 'A'.repeat(43),
    ]) {
      const res = await request(app).get(path);
      expect([path, res.status]).toEqual([path, 404]);
    }
  });

  test('When the collection has its own thumbnail size, the image fits that box', async () => {
    const { collection } = await createCollection(db.pool, {
      maxDocuments: 10,
      maxApiCalls: 10,
      thumbnailSize: '200X100',
    });
    const cid = collection.id;
    await withTx(db.pool, (tx) =>
      service.recordChange(
        tx,
        upsert({
          collectionId: cid,
          dockey: 'a',
          docId: 1,
          version: 1,
          image: `${images.url}/b.jpg`,
        }),
      ),
    );
    await service.drain();
    const f = (await fields(1, cid))!;
    expect(Object.keys(f).sort()).toEqual([
      'archive_image_size_list',
      'archive_thumbnail',
      'archive_thumbnail_200X100',
    ]);
    const res = await request(app).get(pathOf(f.archive_thumbnail_200X100!)).buffer(true);
    const meta = await sharp(res.body as Buffer).metadata();
    expect([meta.width, meta.height]).toEqual([33, 100]);
  });

  test('When PNG, WebP and huge originals come in, each gets a thumbnail inside the box', async () => {
    const cases = [
      ['/a.png', 'image/png', '400X300'],
      ['/a.webp', 'image/jpeg', '300X600'],
      ['/huge.jpg', 'image/jpeg', '6000X6000'],
    ] as const;
    await withTx(db.pool, async (tx) => {
      for (const [i, [path]] of cases.entries()) {
        await service.recordChange(
          tx,
          upsert({ dockey: `d${i}`, docId: 10 + i, version: 1, image: `${images.url}${path}` }),
        );
      }
    });
    await service.drain();
    for (const [i, [path, type, size]] of cases.entries()) {
      const f = (await fields(10 + i))!;
      expect(f.archive_image_size_list).toBe(`${images.url}${path} ${size}`);
      const res = await request(app).get(pathOf(f.archive_thumbnail_130X130!)).buffer(true);
      expect(res.headers['content-type']).toBe(type);
      const meta = await sharp(res.body as Buffer).metadata();
      expect(Math.max(meta.width!, meta.height!)).toBe(130);
    }
  });
});

describe('changes of the image', () => {
  async function add(version: number, image?: string) {
    await withTx(db.pool, (tx) =>
      service.recordChange(tx, upsert({ dockey: 'a', docId: 1, version, image })),
    );
  }

  test('When the image is updated, the thumbnail is replaced and the old URL goes away', async () => {
    await add(1, `${images.url}/a.jpg`);
    await service.drain();
    const first = (await fields(1))!.archive_thumbnail_130X130!;
    await add(2, `${images.url}/b.jpg`);
    // the old thumbnail is gone with the change, before the new one is made
    expect(await fields(1)).toBeUndefined();
    await service.drain();
    const second = (await fields(1))!;
    expect(second.archive_thumbnail_130X130).not.toBe(first);
    expect(second.archive_image_size_list).toBe(`${images.url}/b.jpg 300X900`);
    expect((await request(app).get(pathOf(first))).status).toBe(404);
    expect((await request(app).get(pathOf(second.archive_thumbnail_130X130!))).status).toBe(200);
  });

  test('When a change keeps the same image (e.g. a field update), nothing is fetched again', async () => {
    await add(1, `${images.url}/a.jpg`);
    await service.drain();
    await add(2, `${images.url}/a.jpg`);
    await add(3, `${images.url}/a.jpg`);
    await service.drain();
    expect(images.hits.get('/a.jpg')).toBe(1);
    expect(await jobs()).toHaveLength(1);
    expect(await fields(1)).toBeDefined();
  });

  test('When the document is deleted or loses its image, the thumbnail is removed', async () => {
    await add(1, `${images.url}/a.jpg`);
    await service.drain();
    const url = (await fields(1))!.archive_thumbnail_130X130!;
    await add(2);
    expect(await fields(1)).toBeUndefined();
    expect((await request(app).get(pathOf(url))).status).toBe(404);

    await add(3, `${images.url}/a.jpg`);
    await service.drain();
    expect(await fields(1)).toBeDefined();
    await withTx(db.pool, (tx) =>
      service.recordChange(tx, remove({ dockey: 'a', docId: 1, version: 3 })),
    );
    expect(await fields(1)).toBeUndefined();
  });

  test('When the image changes while the old one is still being fetched, the old result is thrown away', async () => {
    await add(1, `${images.url}/slow.jpg?ms=400`);
    const inFlight = service.runOnce();
    await waitFor(() => images.hits.has('/slow.jpg'));
    await add(2, `${images.url}/b.jpg`);
    await inFlight;
    expect(await fields(1)).toBeUndefined();
    await service.drain();
    expect((await fields(1))!.archive_image_size_list).toBe(`${images.url}/b.jpg 300X900`);
    expect((await jobs()).map((j) => j.outcome)).toEqual(['superseded', 'stored']);
  });

  test('When the collection is dropped, its thumbnails and queued jobs go', async () => {
    await add(1, `${images.url}/a.jpg`);
    await service.drain();
    await withTx(db.pool, async (tx) => {
      await service.recordChange(
        tx,
        upsert({ dockey: 'b', docId: 2, version: 1, image: `${images.url}/b.jpg` }),
      );
      await service.dropCollection!(tx, 'abcd1234');
    });
    expect(await fields(1)).toBeUndefined();
    expect((await jobs()).every((j) => j.done)).toBe(true);
  });
});

describe('failing originals', () => {
  test('When the image server fails twice, the job is retried with backoff and then succeeds', async () => {
    images.failures.set('/a.jpg', 2);
    await withTx(db.pool, (tx) =>
      service.recordChange(
        tx,
        upsert({ dockey: 'a', docId: 1, version: 1, image: `${images.url}/a.jpg` }),
      ),
    );
    service.start();
    await waitFor(async () => (await fields(1)) !== undefined, 5000, 20);
    expect(await jobs()).toMatchObject([{ attempts: 3, outcome: 'stored', done: true }]);
  });

  test('When the original is not an image, it is given up at once and the document has no thumbnail', async () => {
    await withTx(db.pool, (tx) =>
      service.recordChange(
        tx,
        upsert({ dockey: 'a', docId: 1, version: 1, image: `${images.url}/not-image.txt` }),
      ),
    );
    await service.drain();
    expect(await jobs()).toMatchObject([{ attempts: 1, outcome: 'failed', done: true }]);
    expect((await jobs())[0].last_error).toMatch(/not an image/);
    expect(await fields(1)).toBeUndefined();
    // a later change with the same (broken) image does not fetch it again right away
    await withTx(db.pool, (tx) =>
      service.recordChange(
        tx,
        upsert({ dockey: 'a', docId: 1, version: 2, image: `${images.url}/not-image.txt` }),
      ),
    );
    expect(await jobs()).toHaveLength(1);
  });

  test('When the original is too big, it is refused without retries', async () => {
    const small = makeService({ maxBytes: 1024 * 1024 });
    await withTx(db.pool, (tx) =>
      small.recordChange(
        tx,
        upsert({ dockey: 'a', docId: 1, version: 1, image: `${images.url}/big-chunked.jpg` }),
      ),
    );
    await small.drain();
    expect(await jobs()).toMatchObject([{ attempts: 1, outcome: 'failed' }]);
    expect((await jobs())[0].last_error).toMatch(/more than 1048576 bytes/);
  });

  test('When the image server is too slow, every attempt times out and the job is given up after 3', async () => {
    const impatient = makeService({ fetchTimeoutMs: 150 });
    await withTx(db.pool, (tx) =>
      impatient.recordChange(
        tx,
        upsert({ dockey: 'a', docId: 1, version: 1, image: `${images.url}/slow.jpg?ms=1000` }),
      ),
    );
    await impatient.drain();
    expect(await jobs()).toMatchObject([{ attempts: 3, outcome: 'failed' }]);
    expect((await jobs())[0].last_error).toMatch(/timed out/);
  });

  test('When private networks are not allowed, a loopback original or a redirect to one is refused', async () => {
    const strict = makeService({ allowPrivateNetworks: false });
    await withTx(db.pool, (tx) =>
      strict.recordChange(
        tx,
        upsert({ dockey: 'a', docId: 1, version: 1, image: `${images.url}/a.jpg` }),
      ),
    );
    await strict.drain();
    expect(await jobs()).toMatchObject([{ attempts: 1, outcome: 'failed' }]);
    expect(images.hits.size).toBe(0);

    // the first hop counts as public here (test seam); the redirect to 127.0.0.2 must not
    const redirectCheck = makeService({
      allowPrivateNetworks: false,
      isAllowedAddress: (a) => a === '127.0.0.1',
    });
    const target = encodeURIComponent(`http://127.0.0.2:${images.port}/a.jpg`);
    await withTx(db.pool, (tx) =>
      redirectCheck.recordChange(
        tx,
        upsert({ dockey: 'b', docId: 2, version: 1, image: `${images.url}/to?u=${target}` }),
      ),
    );
    await redirectCheck.drain();
    const last = (await jobs()).at(-1);
    expect(last).toMatchObject({ outcome: 'failed' });
    expect(last.last_error).toMatch(/127\.0\.0\.2 is not allowed/);
    expect(await service.resultFields('abcd1234', ['1', '2'])).toEqual(new Map());
  });
});
