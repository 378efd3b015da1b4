import express from 'express';
import type pg from 'pg';
import sharp from 'sharp';
import request from 'supertest';
import type { TestDatabase } from '@hub/testing';
import type { SearchIndex } from '../../src/index/search-index';
import {
  createThumbnailService,
  thumbnailRouter,
  type ThumbnailServiceImpl,
  type ThumbnailServiceOptions,
} from '../../src/thumbnails';
import { silentLogger, testDatabase, waitFor } from '../outbox-fixtures';
import { startImageServer, type ImageServer } from '../thumbnails-image-server';
import { makeApp } from './harness';
import { client, type TestCollection } from './requests';

const THUMBNAIL_URL = 'https://search.example.com/thumbnails';

/** What each thumbnail service test starts with (useThumbnailTest). */
export interface ThumbnailTest {
  db: TestDatabase;
  images: ImageServer;
  /** a new thumbnail service (thumbnailTestService), not started */
  service: ThumbnailServiceImpl;
}

/** A thumbnail service of the tests: private networks allowed, quick retries, `over` on top. */
export function thumbnailTestService(
  db: TestDatabase,
  over: Partial<ThumbnailServiceOptions> = {},
): ThumbnailServiceImpl {
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

/**
 * A test file's database, local image server and thumbnail app. Before each test the jobs and
 * thumbnails are emptied, the image server's hits forgotten and a new service is handed to
 * `opened`; after each test it stops. Returns the app and what the tests read, of that service.
 */
export function useThumbnailTest(opened: (t: ThumbnailTest) => void) {
  let db: TestDatabase;
  let images: ImageServer;
  let service: ThumbnailServiceImpl;
  const app = express();
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
    service = thumbnailTestService(db);
    opened({ db, images, service });
  });
  afterEach(async () => {
    await service.stop();
  });

  return {
    /** an app serving the thumbnails at /thumbnails */
    app,
    makeService: (over: Partial<ThumbnailServiceOptions> = {}) => thumbnailTestService(db, over),
    /** The path of a thumbnail URL under the router's mount point. */
    pathOf: (url: string): string => {
      expect(url.startsWith(`${THUMBNAIL_URL}/`)).toBe(true);
      return `/thumbnails${url.slice(THUMBNAIL_URL.length)}`;
    },
    /** The thumbnail jobs, oldest first. */
    jobs: async () => {
      const r = await db.pool.query(
        `SELECT image_url, attempts, outcome, last_error, done_at IS NOT NULL AS done FROM thumbnail_jobs ORDER BY id`,
      );
      return r.rows;
    },
    /** The thumbnail fields of a document's search result, from the service. */
    fields: async (docId: string | number, cid = 'abcd1234') => {
      return (await service.resultFields(cid, [String(docId)])).get(String(docId));
    },
  };
}

/** The jobs of a collection a worker holds right now (leased, not done). */
export async function jobsInFlight(pool: pg.Pool, collectionId: string): Promise<number> {
  const r = await pool.query(
    `SELECT count(*)::int AS n FROM thumbnail_jobs
      WHERE collection_id = $1 AND done_at IS NULL AND leased_until > clock_timestamp()`,
    [collectionId],
  );
  return r.rows[0].n;
}

/** The THUMBNAIL_URL of the whole-service tests: the service's own address. */
export const SERVICE_THUMBNAIL_URL = 'http://127.0.0.1:8081/thumbnails';

/**
 * The whole service as main.ts wires it, over HTTP: an app (on `index`, else the default
 * engine) with a thumbnail service as in production but for private networks (`thumbnails` on
 * top), behind a server that also serves the thumbnail images at the path of
 * SERVICE_THUMBNAIL_URL. `api(c)` is a collection's client through that server, `image(url)`
 * the GET of a thumbnail URL an answer gave. The caller starts and stops `thumbnails`.
 */
export function wholeService(
  db: TestDatabase,
  opts: { index?: SearchIndex; thumbnails?: Partial<ThumbnailServiceOptions> } = {},
) {
  const thumbnails = createThumbnailService({
    pool: db.pool,
    thumbnailUrl: SERVICE_THUMBNAIL_URL,
    logger: silentLogger,
    allowPrivateNetworks: true,
    ...opts.thumbnails,
  });
  const app = makeApp(db, {
    index: opts.index,
    thumbnails,
    env: { THUMBNAIL_URL: SERVICE_THUMBNAIL_URL },
  });
  const outer = express();
  outer.use('/thumbnails', thumbnailRouter({ pool: db.pool }));
  outer.use(app);
  const origin = new URL(SERVICE_THUMBNAIL_URL).origin;
  const image = (url: string) => request(outer).get(url.slice(origin.length)).buffer(true);
  const thumbnailPattern = (cid: string) =>
    new RegExp(
      `^${SERVICE_THUMBNAIL_URL.replace(/\./g, '\\.')}/cse_${cid}/130X130/[A-Za-z0-9_-]{43}$`,
    );
  return {
    app,
    thumbnails,
    api: (c: TestCollection) => client(outer as never, c),
    image,
    /** The ms until the first hit of `q` through `api` carries its 130X130 thumbnail URL. */
    untilThumbnailed: (
      api: ReturnType<typeof client>,
      q: string,
      timeoutMs: number,
      stepMs: number,
    ) =>
      waitFor(
        async () => (await api.search({ q })).body.docs[0]?.archive_thumbnail_130X130 !== undefined,
        timeoutMs,
        stepMs,
      ),
    /**
     * A search answer's doc of collection `cid` whose image is the image server's a.jpg has its
     * 130X130 thumbnail URL (archive_thumbnail the same), and the service serves it: a 130x97
     * JPEG.
     */
    async expectThumbnail(doc: Record<string, string>, cid: string) {
      expect(doc.archive_thumbnail).toBe(doc.archive_thumbnail_130X130);
      expect(doc.archive_thumbnail_130X130).toMatch(thumbnailPattern(cid));
      const res = await image(doc.archive_thumbnail_130X130!);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('image/jpeg');
      const meta = await sharp(res.body as Buffer).metadata();
      expect([meta.width, meta.height]).toEqual([130, 97]);
    },
  };
}
