import type { TestDatabase } from '@hub/testing';
import type { ThumbnailServiceImpl } from '../src/thumbnails';
import { useThumbnailTest } from './helpers/thumbnails';
import { upsert, waitFor, withTx } from './outbox-fixtures';
import type { ImageServer } from './thumbnails-image-server';

/** The thumbnail service when originals fail: retries, non-images, size, time and address limits. */

let db: TestDatabase;
let images: ImageServer;
let service: ThumbnailServiceImpl;
const { fields, jobs, makeService } = useThumbnailTest((t) => ({ db, images, service } = t));

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
