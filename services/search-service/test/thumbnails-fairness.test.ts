import { closeAfterAll, makeApp, newCollection, useSearchDatabase } from './helpers/harness';
import { docJson } from './helpers/requests';
import { jobsInFlight, wholeService } from './helpers/thumbnails';
import { waitFor } from './outbox-fixtures';
import {
  startImageServer,
  startSilentServer,
  type ImageServer,
  type SilentServer,
} from './thumbnails-image-server';

/**
 * One collection's originals on a host that accepts connections and never answers do not
 * hold up another collection's thumbnails: the whole service over HTTP, the thumbnail worker
 * as in production (2 loops, 10 s fetch timeout, 4 attempts, 1 job per collection at once).
 */

const FETCH_TIMEOUT_MS = 10_000;

let silent: SilentServer;
let images: ImageServer;
let app: ReturnType<typeof makeApp>;
let service: ReturnType<typeof wholeService>;

const db = useSearchDatabase();
beforeAll(async () => {
  images = await startImageServer();
  silent = await startSilentServer();
  service = wholeService(db, { thumbnails: { fetchTimeoutMs: FETCH_TIMEOUT_MS } });
  app = service.app;
  // closed last given first: the silent server's sockets go, so the loop in its fetch ends
  closeAfterAll(() => service.thumbnails.stop());
  closeAfterAll(() => images.close());
  closeAfterAll(() => silent.close());
  service.thumbnails.start();
});

test('When a collection adds 30 documents whose images never answer, another collection’s thumbnail still works within 3 s of its add', async () => {
  const aCollection = await newCollection(app);
  const a = service.api(aCollection);
  const bCollection = await newCollection(app);
  const b = service.api(bCollection);
  for (let i = 0; i < 30; i++) {
    const res = await a.add(
      `dead-${i}`,
      docJson({ icontents_title: `dead ${i}`, contents_image: `${silent.url}/img/${i}.jpg` }),
    );
    expect([i, res.status]).toEqual([i, 200]);
  }
  // A's first original is being fetched: a worker waits on the silent host
  await waitFor(() => silent.connections() > 0, 3000, 10);

  const added = Date.now();
  const res = await b.add(
    'good',
    docJson({ icontents_title: 'good picture', contents_image: `${images.url}/a.jpg` }),
  );
  expect(res.status).toBe(200);
  // well inside A's fetch timeout: A's backlog cannot have cleared (30 × 10 s, 4 attempts)
  const waited = await service.untilThumbnailed(b, 'good', 3000, 20);
  console.log(
    `fairness: B's thumbnail URL in results ${waited} ms after its add (${Date.now() - added} ms in all) ` +
      `while A's 30 originals hang; connections to the silent host: ${silent.connections()}`,
  );

  const doc = (await b.search({ q: 'good' })).body.docs[0];
  await service.expectThumbnail(doc, bCollection.cid);

  // A held one of the two loops, never both
  expect(silent.connections()).toBe(1);
  expect(await jobsInFlight(db.pool, aCollection.cid)).toBe(1);
});
