import type { TestDatabase } from '@hub/testing';
import type { ThumbnailServiceImpl } from '../src/thumbnails';
import { claimJobs, giveUpJob, type ClaimOptions } from '../src/thumbnails/jobs';
import { jobsInFlight, useThumbnailTest } from './helpers/thumbnails';
import { upsert, waitFor, withTx } from './outbox-fixtures';
import { startSilentServer, type ImageServer } from './thumbnails-image-server';

/**
 * Thumbnail claims are fair: collections with due jobs take turns (least recently served
 * first) and none has more than its cap of jobs in flight, across workers and instances.
 */

let db: TestDatabase;
let images: ImageServer;
let service: ThumbnailServiceImpl;
const { makeService } = useThumbnailTest((t) => ({ db, images, service } = t));

/** Queues `n` jobs of collection `cid` (dockeys `<cid>1` … `<cid>n`), images at `base`. */
async function queue(cid: string, n: number, base = images.url): Promise<void> {
  await withTx(db.pool, async (tx) => {
    for (let i = 1; i <= n; i++) {
      await service.recordChange(
        tx,
        upsert({
          collectionId: cid,
          dockey: `${cid}${i}`,
          docId: i,
          version: 1,
          image: `${base}/a.jpg?${cid}${i}`,
        }),
      );
    }
  });
}

const claim = (n: number, perCollection: number, over: Partial<ClaimOptions> = {}) =>
  claimJobs(db.pool, { n, leaseMs: 60_000, ignoreBackoff: false, perCollection, ...over });

/** `<collection>:<doc id>` of claimed jobs, sorted */
const names = (jobs: Array<{ collection_id: string; doc_id: string }>) =>
  jobs.map((j) => `${j.collection_id}:${j.doc_id}`).sort();

describe('fair claims', () => {
  test('When three collections have due jobs, a claim serves them in turn, least recently served first, each up to its cap', async () => {
    for (const cid of ['a', 'b', 'c']) await queue(cid, 3);
    // never served: ties go by collection id
    const first = await claim(1, 2);
    expect(names(first)).toEqual(['a:1']);
    await giveUpJob(db.pool, first[0]!, 'done with it');
    // b and c were never served, a just now: b, c, a, then b's second job (oldest due first)
    expect(names(await claim(4, 2))).toEqual(['a:2', 'b:1', 'b:2', 'c:1']);
    // b has its 2 in flight; a and c one each: one more of each
    expect(names(await claim(4, 2))).toEqual(['a:3', 'c:2']);
    expect(await claim(4, 2)).toEqual([]);
    expect([
      await jobsInFlight(db.pool, 'a'),
      await jobsInFlight(db.pool, 'b'),
      await jobsInFlight(db.pool, 'c'),
    ]).toEqual([2, 2, 2]);
  });

  test('When twenty claims race for one collection’s jobs, no more than its cap are in flight', async () => {
    await queue('a', 10);
    const racing = await Promise.all(Array.from({ length: 20 }, () => claim(1, 3)));
    expect(racing.flat()).toHaveLength(3);
    expect(await jobsInFlight(db.pool, 'a')).toBe(3);
    // drained by tools, the cap holds too: one claim of 10 takes what is left of it
    expect(await claim(10, 4, { ignoreBackoff: true })).toHaveLength(1);
  });

  test('When two instances of two loops each run, a collection whose originals never answer holds only its cap of the four loops', async () => {
    const silent = await startSilentServer();
    const instances = [1, 2].map(() =>
      makeService({ fetchTimeoutMs: 10_000, concurrency: 2, maxJobsPerCollection: 2 }),
    );
    try {
      await queue('dead', 10, silent.url);
      for (const instance of instances) instance.start();
      await waitFor(() => silent.connections() >= 2, 3000, 10);
      await queue('good', 5);
      const waited = await waitFor(
        async () =>
          (await db.pool.query(`SELECT 1 FROM thumbnails WHERE collection_id = 'good'`))
            .rowCount === 5,
        3000,
        10,
      );
      console.log(`claims: 5 thumbnails of another collection made in ${waited} ms`);
      expect(silent.connections()).toBe(2);
      expect(await jobsInFlight(db.pool, 'dead')).toBe(2);
    } finally {
      await silent.close(); // the loops waiting on it end their rounds
      await Promise.all(instances.map((i) => i.stop()));
    }
  });
});
