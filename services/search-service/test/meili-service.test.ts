import type { MeilisearchIndex } from '../src/index/meilisearch/meilisearch-index';
import type { ThumbnailServiceImpl } from '../src/thumbnails';
import { closeAfterAll, makeApp, newCollection, type TestDatabase } from './helpers/harness';
import { docJson } from './helpers/requests';
import { useMeilisearch } from './helpers/meili';
import { wholeService } from './helpers/thumbnails';
import type { MeiliStub } from './meili-stub';
import { waitFor } from './outbox-fixtures';
import { startImageServer, type ImageServer } from './thumbnails-image-server';

/**
 * The whole service with the Meilisearch engine (against the stub) and real thumbnails: what a
 * client sees through the HTTP API, wired the way main.ts/app.ts are told to wire it.
 */

let db: TestDatabase;
let stub: MeiliStub;
let images: ImageServer;
let engine: MeilisearchIndex;
let thumbnails: ThumbnailServiceImpl;
let app: ReturnType<typeof makeApp>;
let service: ReturnType<typeof wholeService>;

useMeilisearch((m) => ({ db, stub, engine } = m), { engine: { requestTimeoutMs: 500 } });
beforeAll(async () => {
  images = await startImageServer();
  closeAfterAll(() => images.close());
  service = wholeService(db, { index: engine });
  ({ app, thumbnails } = service);
  closeAfterAll(() => thumbnails.stop());
  engine.start();
  thumbnails.start();
  await engine.ensureSettings();
});

test('When a document with an image is added over HTTP, it is searchable within 1 s and its 130X130 thumbnail works within 5 s', async () => {
  const c = await newCollection(app);
  const api = service.api(c);
  const added = Date.now();
  const res = await api.add(
    'doc-1',
    docJson({ icontents_title: 'hello world', contents_image: `${images.url}/a.jpg` }),
  );
  expect(res.status).toBe(200);

  const searchable = await waitFor(
    async () => (await api.search({ q: 'hello' })).body.numfound === 1,
    1000,
    5,
  );
  const thumbnailed = await service.untilThumbnailed(api, 'hello', 5000, 10);
  console.log(
    `service level: searchable ${searchable} ms after the 200, thumbnail URL in results ${thumbnailed} ms after that ` +
      `(${Date.now() - added} ms in all)`,
  );

  const doc = (await api.search({ q: 'hello' })).body.docs[0];
  expect(doc).toMatchObject({
    dockey: 'doc-1',
    icontents_title: 'hello world',
    archive_image_size_list: `${images.url}/a.jpg 800X600`,
  });
  await service.expectThumbnail(doc, c.cid);

  // update with a new image → new thumbnail; delete → gone from search
  expect(
    (
      await api.update(
        'doc-1',
        docJson({ icontents_title: 'hello again', contents_image: `${images.url}/b.jpg` }),
      )
    ).status,
  ).toBe(200);
  await engine.settle();
  await thumbnails.drain();
  const updated = (await api.search({ q: 'again' })).body.docs[0];
  expect(updated.archive_image_size_list).toBe(`${images.url}/b.jpg 300X900`);
  expect(updated.archive_thumbnail_130X130).not.toBe(doc.archive_thumbnail_130X130);
  expect((await service.image(doc.archive_thumbnail_130X130)).status).toBe(404);

  expect((await api.delete('doc-1')).status).toBe(200);
  await engine.settle();
  expect((await api.search({ q: 'again' })).body).toMatchObject({ numfound: 0, docs: [] });
  expect((await service.image(updated.archive_thumbnail_130X130)).status).toBe(404);
});

test('When Meilisearch is down, status says search_status false; a doc added meanwhile arrives once it is back', async () => {
  const c = await newCollection(app);
  const api = service.api(c);
  stub.down = true;
  const status = await api.status();
  expect(status.status).toBe(200);
  expect(status.body.search_status).toBe('false');
  expect((await api.add('doc-2', docJson({ icontents_title: 'while down' }))).status).toBe(200);
  stub.down = false;
  await waitFor(async () => (await api.search({ q: 'down' })).body.numfound === 1, 5000, 20);
  expect((await api.status()).body.search_status).toBe('true');
});
