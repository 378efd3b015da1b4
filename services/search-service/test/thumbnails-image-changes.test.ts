import request from 'supertest';
import type { TestDatabase } from '@hub/testing';
import type { ThumbnailServiceImpl } from '../src/thumbnails';
import { useThumbnailTest } from './helpers/thumbnails';
import { remove, upsert, waitFor, withTx } from './outbox-fixtures';
import type { ImageServer } from './thumbnails-image-server';

/** The thumbnail service when a document's image changes, goes, or its collection is dropped. */

let db: TestDatabase;
let images: ImageServer;
let service: ThumbnailServiceImpl;
const { app, fields, jobs, pathOf } = useThumbnailTest((t) => ({ db, images, service } = t));

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
