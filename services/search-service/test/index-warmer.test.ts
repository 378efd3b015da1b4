import { createIndexWarmer } from '../src/index/postgres/read/index-warmer';
import { modelApp, modelIndex } from './helpers/engine-model';
import { interceptedPool, useSearchDatabase } from './helpers/harness';

/** What searches read first of the collections this instance folds, kept warm (read/index-warmer.ts). */

const db = useSearchDatabase();

/** a reader whose warm-ups wait until released, recording the collections warmed */
function heldReader() {
  const warmed: string[] = [];
  const releases: Array<() => void> = [];
  return {
    warmed,
    release: () => releases.splice(0).forEach((r) => r()),
    reader: {
      warm: (collectionId: string) =>
        new Promise<void>((resolve) => {
          warmed.push(collectionId);
          releases.push(resolve);
        }),
    },
  };
}

const settle = () => new Promise((r) => setImmediate(r));
const quiet = { debug: () => {} };

test('When a collection changes (a fold, a merge), it is warmed once; changes during that warm-up make one more, not one each', async () => {
  const r = heldReader();
  const warmer = createIndexWarmer(r.reader, quiet);
  warmer.changed('a');
  warmer.changed('a');
  warmer.changed('a');
  warmer.changed('b');
  expect(r.warmed).toEqual(['a', 'b']);
  r.release();
  await settle();
  expect(r.warmed).toEqual(['a', 'b', 'a']);
  r.release();
  await settle();
  expect(r.warmed).toEqual(['a', 'b', 'a']);
  await warmer.stop();
});

test('When a warm-up fails, it is logged at debug and the next change warms again', async () => {
  const logged: unknown[] = [];
  let fail = true;
  const warmer = createIndexWarmer(
    {
      warm: async () => {
        if (fail) throw new Error('segment merged away');
      },
    },
    { debug: (o: unknown) => logged.push(o) },
  );
  warmer.changed('a');
  await settle();
  expect(logged).toEqual([{ collectionId: 'a', err: 'Error: segment merged away' }]);
  fail = false;
  warmer.changed('a');
  await settle();
  expect(logged).toHaveLength(1);
  await warmer.stop();
});

test('When the warmer is stopped, it waits for the warm-up under way and starts no other', async () => {
  const r = heldReader();
  const warmer = createIndexWarmer(r.reader, quiet);
  warmer.changed('a');
  let stopped = false;
  const stopping = warmer.stop().then(() => (stopped = true));
  warmer.changed('b');
  await settle();
  expect(stopped).toBe(false);
  r.release();
  await stopping;
  expect(r.warmed).toEqual(['a']);
});

/** The statements the index's pool runs, by name, and a wait until it has run none for a while. */
function namedStatements() {
  const names: string[] = [];
  const pool = interceptedPool(db.pool, async (q, run) => {
    names.push((q as { name?: string } | null)?.name ?? '');
    return run();
  });
  const quiet = async () => {
    for (let n = -1; n !== names.length;) {
      n = names.length;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { names, pool, quiet };
}

test('When this instance folds a collection, its next search finds its view, packed segments and segments warm: one statement', async () => {
  const { names, pool, quiet } = namedStatements();
  const index = modelIndex(pool);
  const { search, want, c, ...m } = await modelApp(db, index, 7);
  await m.add(120);
  while ((await index.folder.fold(c.cid)).folded > 0); // 14 packed segments, no merge
  await quiet(); // each fold warms the collection in the background
  names.length = 0;
  const p = { q: '서울', sort: 0, start: 0, len: 10 } as const;
  expect(await search(p)).toEqual(want(p));
  expect(names).toEqual(['bitmap-snapshot-read']);
  await index.stop();
});

test("When this instance merges a collection's segments, its next search reads the merged segment's lists with its snapshot", async () => {
  const { names, pool, quiet } = namedStatements();
  const index = modelIndex(pool);
  const { search, want, c, ...m } = await modelApp(db, index, 7);
  await m.add(120);
  while ((await index.folder.fold(c.cid)).folded > 0);
  await quiet();
  const p = { q: '서울', sort: 0, start: 0, len: 10 } as const;
  expect(await search(p)).toEqual(want(p));
  expect(await index.folder.merge(c.cid)).toBe(1); // 8 × 9 documents: a segment of rows
  await quiet();
  names.length = 0;
  const q = { q: '서울 부산', sort: 1, start: 0, len: 10 } as const;
  expect(await search(q)).toEqual(want(q));
  expect(names).toEqual(['bitmap-snapshot-read']);
  await index.stop();
});
