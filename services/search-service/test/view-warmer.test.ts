import { createViewWarmer } from '../src/index/postgres/read/view-warmer';
import { modelApp, modelIndex } from './helpers/engine-model';
import { foldAll, interceptedPool, useSearchDatabase } from './helpers/harness';

/** The views of the collections this instance folds, kept current (read/view-warmer.ts). */

const db = useSearchDatabase();

/** a reader whose warm-ups wait until released, recording the collections warmed */
function heldReader() {
  const warmed: string[] = [];
  const releases: Array<() => void> = [];
  return {
    warmed,
    release: () => releases.splice(0).forEach((r) => r()),
    reader: {
      warmView: (collectionId: string) =>
        new Promise<void>((resolve) => {
          warmed.push(collectionId);
          releases.push(resolve);
        }),
    },
  };
}

const settle = () => new Promise((r) => setImmediate(r));
const quiet = { debug: () => {} };

test('When a collection is folded, its view is warmed once; folds during that warm-up make one more, not one each', async () => {
  const r = heldReader();
  const warmer = createViewWarmer(r.reader, quiet);
  warmer.folded('a');
  warmer.folded('a');
  warmer.folded('a');
  warmer.folded('b');
  expect(r.warmed).toEqual(['a', 'b']);
  r.release();
  await settle();
  expect(r.warmed).toEqual(['a', 'b', 'a']);
  r.release();
  await settle();
  expect(r.warmed).toEqual(['a', 'b', 'a']);
  await warmer.stop();
});

test('When a warm-up fails, it is logged at debug and the next fold warms again', async () => {
  const logged: unknown[] = [];
  let fail = true;
  const warmer = createViewWarmer(
    {
      warmView: async () => {
        if (fail) throw new Error('segment merged away');
      },
    },
    { debug: (o: unknown) => logged.push(o) },
  );
  warmer.folded('a');
  await settle();
  expect(logged).toEqual([{ collectionId: 'a', err: 'Error: segment merged away' }]);
  fail = false;
  warmer.folded('a');
  await settle();
  expect(logged).toHaveLength(1);
  await warmer.stop();
});

test('When the warmer is stopped, it waits for the warm-up under way and starts no other', async () => {
  const r = heldReader();
  const warmer = createViewWarmer(r.reader, quiet);
  warmer.folded('a');
  let stopped = false;
  const stopping = warmer.stop().then(() => (stopped = true));
  warmer.folded('b');
  await settle();
  expect(stopped).toBe(false);
  r.release();
  await stopping;
  expect(r.warmed).toEqual(['a']);
});

test("When this instance folds a collection, the collection's next search finds its view ready and reads no segment's numbers", async () => {
  const names: string[] = [];
  const pool = interceptedPool(db.pool, async (q, run) => {
    names.push((q as { name?: string } | null)?.name ?? '');
    return run();
  });
  const index = modelIndex(pool);
  const { search, want, ...m } = await modelApp(db, index, 7);
  await m.add(120);
  await foldAll(index); // each fold warms the view (in the background)
  for (let i = 0; i < 50 && !names.includes('bitmap-folded-state'); i++) await settle();
  await index.stop(); // the warm-ups under way end
  names.length = 0;
  const p = { q: '서울', sort: 0, start: 0, len: 10 } as const;
  expect(await search(p)).toEqual(want(p));
  expect(names).toContain('bitmap-snapshot-rows');
  expect(names).not.toContain('bitmap-segment-docs');
});
