import path from 'node:path';
import { createLogger, createMetrics, type Metrics } from '@hub/service-kit';
import {
  createPostgresIndex,
  type PostgresIndexOptions,
} from '../src/index/postgres/postgres-index';
import { createFolderSupervisor } from '../src/index/postgres/fold/folder-supervisor';
import { folderThreadNice } from '../src/index/postgres/fold/folder-thread';
import { appWithCollection, newCollection, useSearchDatabase } from './helpers/harness';
import { client, docJson } from './helpers/requests';
import { waitFor } from './outbox-fixtures';

/**
 * The folder is supervised: when it dies (its thread ends, its loop fails) the death is logged
 * at error with its cause, /metrics says it is not running, and it is started again after a
 * backoff, which then folds what piled up meanwhile. A stop is not a death.
 */

const db = useSearchDatabase();

/** runs the folder thread from the TypeScript sources (no dist/ needed) */
const THREAD_SOURCES = path.join(__dirname, 'helpers', 'folder-thread-sources.js');
const DIED = 'search index folder died; restarting it';
const RESTARTED = 'search index folder restarted';

type LogLine = {
  level: number;
  msg: string;
  err?: string;
  restartInMs?: number;
  collectionId?: string;
};

/** An engine whose folder starts with start(), logging into `lines`, metrics into `metrics`. */
function supervisedIndex(opts: PostgresIndexOptions = {}) {
  const lines: LogLine[] = [];
  const logger = createLogger('search-service', 'info', {
    write: (line: string) => void lines.push(JSON.parse(line) as LogLine),
  });
  const metrics = createMetrics('search-service');
  const index = createPostgresIndex(db.pool, {
    metrics,
    logger,
    foldMinBatch: 1,
    foldMaxDelayMs: 0,
    foldIdleMs: 20,
    ...opts,
  });
  const logged = (msg: string) => lines.filter((l) => l.msg === msg);
  return { index, metrics, lines, logged };
}

async function metric(metrics: Metrics, name: string): Promise<number> {
  const text = await metrics.registry.metrics();
  const found = new RegExp(`^${name}\\{service="search-service"\\} (\\S+)$`, 'm').exec(text);
  if (!found) throw new Error(`${name} not on /metrics`);
  return Number(found[1]);
}

async function addDocs(api: ReturnType<typeof client>, n: number, prefix: string) {
  for (let i = 0; i < n; i++) {
    const res = await api.add(`${prefix}${i}`, docJson({ icontents_title: `item ${i}` }));
    expect(res.status).toBe(200);
  }
}

test('When the folder thread is terminated, that is logged at error, /metrics says not running, and a new thread folds what piled up', async () => {
  const { index, metrics, logged } = supervisedIndex({
    databaseUrl: db.url,
    logLevel: 'silent',
    folderThreadEntry: THREAD_SOURCES,
  });
  const { c, app } = await appWithCollection(db, {}, { index });
  const api = client(app, c);
  index.start();
  try {
    expect(await metric(metrics, 'search_folder_running')).toBe(1);
    await addDocs(api, 3, 'before');
    await waitFor(async () => (await metric(metrics, 'search_fold_lag_documents')) === 0, 20_000);

    await index.supervisor.terminate();
    await waitFor(() => logged(DIED).length === 1);
    expect(logged(DIED)[0]).toMatchObject({ level: 50, err: expect.stringMatching(/exited/) });
    // the first restart comes after 1 s (± 20 %): until then, nothing folds
    expect(await metric(metrics, 'search_folder_running')).toBe(0);
    await addDocs(api, 5, 'while-dead');
    expect(await metric(metrics, 'search_fold_lag_documents')).toBeGreaterThanOrEqual(5);

    await waitFor(() => logged(RESTARTED).length === 1, 5_000);
    expect(logged(RESTARTED)[0]).toMatchObject({ level: 30 });
    expect(await metric(metrics, 'search_folder_running')).toBe(1);
    expect(await metric(metrics, 'search_folder_restarts_total')).toBe(1);
    await waitFor(async () => (await metric(metrics, 'search_fold_lag_documents')) === 0, 20_000);
    expect(await metric(metrics, 'search_fold_lag_seconds')).toBe(0);
    expect(JSON.parse((await api.search({ q: 'item' })).text).numfound).toBe(8);
  } finally {
    await index.stop();
  }
  // a stop (shutdown) is not a death
  expect(logged(DIED)).toHaveLength(1);
  expect(await metric(metrics, 'search_folder_running')).toBe(0);
});

test('When the folder loop on this thread fails, the cause is logged at error and the loop runs again after the backoff', async () => {
  const { index, metrics, logged } = supervisedIndex();
  const { c, app } = await appWithCollection(db, {}, { index });
  const api = client(app, c);
  index.start();
  try {
    expect(await metric(metrics, 'search_folder_running')).toBe(1);
    // every round of the folder now fails (documents can still be added: they only go pending)
    await db.pool.query('ALTER TABLE search_tombstones RENAME TO search_tombstones_away');
    await waitFor(() => logged(DIED).length === 1);
    expect(logged(DIED)[0]).toMatchObject({
      level: 50,
      err: expect.stringMatching(/search_tombstones/),
    });
    expect(await metric(metrics, 'search_folder_running')).toBe(0);
    await addDocs(api, 4, 'while-dead');
    expect(await metric(metrics, 'search_fold_lag_documents')).toBe(4);
    expect(await metric(metrics, 'search_fold_lag_seconds')).toBeGreaterThan(0);

    await db.pool.query('ALTER TABLE search_tombstones_away RENAME TO search_tombstones');
    await waitFor(async () => (await metric(metrics, 'search_fold_lag_documents')) === 0, 20_000);
    expect(logged(RESTARTED).length).toBeGreaterThanOrEqual(1);
    expect(await metric(metrics, 'search_folder_running')).toBe(1);
    expect(await metric(metrics, 'search_folder_restarts_total')).toBeGreaterThanOrEqual(1);
    expect(JSON.parse((await api.search({ q: 'item' })).text).numfound).toBe(4);
  } finally {
    await index.stop();
  }
  expect(await metric(metrics, 'search_folder_running')).toBe(0);
});

test("When one collection's fold keeps failing, it is logged and set aside while the other collections are folded, and the folder does not die", async () => {
  const { index, metrics, lines, logged } = supervisedIndex();
  const { c: broken, app } = await appWithCollection(db, {}, { index });
  const healthy = await newCollection(app, {});
  // a fault only this collection's folds hit (its segments cannot be written)
  await db.pool.query(
    `CREATE FUNCTION refuse_segment() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN RAISE EXCEPTION 'segment refused for this test'; END $$`,
  );
  await db.pool.query(
    `CREATE TRIGGER refuse_segment BEFORE INSERT ON search_segments FOR EACH ROW
     WHEN (NEW.collection_id = '${broken.cid}') EXECUTE FUNCTION refuse_segment()`,
  );
  index.start();
  try {
    await addDocs(client(app, broken), 3, 'broken');
    await addDocs(client(app, healthy), 5, 'healthy');
    const setAside = () =>
      lines.filter((l) => l.msg.startsWith('search index fold of a collection failed'));
    await waitFor(async () => (await metric(metrics, 'search_fold_lag_documents')) === 3, 20_000);

    await waitFor(() => setAside().length >= 1);
    expect(setAside()[0]).toMatchObject({
      level: 50,
      collectionId: broken.cid,
      err: expect.stringMatching(/segment refused for this test/),
    });
    expect(logged(DIED)).toEqual([]);
    expect(await metric(metrics, 'search_folder_running')).toBe(1);
    // the broken collection's documents stay searchable from the pending tail
    expect(JSON.parse((await client(app, broken).search({ q: 'item' })).text).numfound).toBe(3);
    expect(JSON.parse((await client(app, healthy).search({ q: 'item' })).text).numfound).toBe(5);

    await db.pool.query('DROP TRIGGER refuse_segment ON search_segments');
    await waitFor(async () => (await metric(metrics, 'search_fold_lag_documents')) === 0, 20_000);
    expect(logged(DIED)).toEqual([]);
  } finally {
    await index.stop();
    await db.pool.query('DROP TRIGGER IF EXISTS refuse_segment ON search_segments');
    await db.pool.query('DROP FUNCTION IF EXISTS refuse_segment()');
  }
});

test('When the folder keeps dying, it is restarted after 1 s doubling to 30 s, and after 1 s again once a run lived a healthy minute', async () => {
  jest.useFakeTimers({ now: 0 });
  jest.spyOn(Math, 'random').mockReturnValue(0.5); // no jitter
  try {
    const launches: number[] = [];
    const deaths: Array<(err: Error) => void> = [];
    const lines: LogLine[] = [];
    const supervisor = createFolderSupervisor({
      logger: createLogger('search-service', 'info', {
        write: (line: string) => void lines.push(JSON.parse(line) as LogLine),
      }),
      launch: () => {
        launches.push(Date.now());
        let die!: (err: Error) => void;
        const ended = new Promise<void>((_, reject) => (die = reject));
        deaths.push(die);
        return { ended, stop: async () => die(new Error('stopped')) };
      },
    });
    supervisor.start();
    for (let i = 0; i < 7; i++) {
      deaths.at(-1)!(new Error(`crash ${i}`));
      await jest.advanceTimersByTimeAsync(30_000);
    }
    expect(launches).toHaveLength(8);
    await jest.advanceTimersByTimeAsync(60_000); // the 8th run lives a minute
    deaths.at(-1)!(new Error('crash after a healthy minute'));
    await jest.advanceTimersByTimeAsync(1000);
    expect(launches).toHaveLength(9);
    expect(lines.filter((l) => l.msg === DIED).map((l) => [l.err, l.restartInMs])).toEqual([
      ['crash 0', 1000],
      ['crash 1', 2000],
      ['crash 2', 4000],
      ['crash 3', 8000],
      ['crash 4', 16000],
      ['crash 5', 30000],
      ['crash 6', 30000],
      ['crash after a healthy minute', 1000],
    ]);
    await supervisor.stop();
    await jest.advanceTimersByTimeAsync(60_000);
    expect(launches).toHaveLength(9);
    expect(supervisor.running()).toBe(false);
  } finally {
    jest.useRealTimers();
    jest.restoreAllMocks();
  }
});

test('The folder thread runs 10 nice steps below its process, at most 19', () => {
  expect(folderThreadNice(0)).toBe(10);
  expect(folderThreadNice(-10)).toBe(0);
  expect(folderThreadNice(5)).toBe(15);
  expect(folderThreadNice(12)).toBe(19);
  expect(folderThreadNice(19)).toBe(19);
});

test('The folder thread runs at a lower CPU priority than the requests (10 nice steps below, on Linux)', async () => {
  const { index } = supervisedIndex({
    databaseUrl: db.url,
    logLevel: 'silent',
    folderThreadEntry: THREAD_SOURCES,
  });
  if (process.platform !== 'linux') return;
  const { readdirSync, readFileSync } = await import('node:fs');
  const niceOf = (tid: string) =>
    Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
  const processNice = niceOf(String(process.pid));
  const niceThreads = () =>
    readdirSync('/proc/self/task').filter((t) => niceOf(t) === folderThreadNice(processNice));
  const before = niceThreads().length;
  index.start();
  try {
    await waitFor(async () => niceThreads().length > before, 20_000);
    expect(niceOf(String(process.pid))).toBe(processNice);
  } finally {
    await index.stop();
  }
});
