import request from 'supertest';
import sharp from 'sharp';
import type { TestDatabase } from '@hub/testing';
import { createCollection } from '../src/store/collections';
import type { ThumbnailServiceImpl } from '../src/thumbnails';
import { useThumbnailTest } from './helpers/thumbnails';
import { upsert, waitFor, withTx } from './outbox-fixtures';
import type { ImageServer } from './thumbnails-image-server';

/** The thumbnail service: a document's thumbnail, made after the write and served. */

let db: TestDatabase;
let images: ImageServer;
let service: ThumbnailServiceImpl;
const { app, fields, jobs, pathOf } = useThumbnailTest((t) => ({ db, images, service } = t));

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
      expect(Math.max(meta.width, meta.height)).toBe(130);
    }
  });
});
