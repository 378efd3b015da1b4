import os from 'node:os';
import path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { createLogger, createPool } from '@hub/service-kit';
import { createIndexFolder, type FoldSettings } from './folder';
import type { FolderObserver } from './folder-metrics';
import type { SupervisedRun } from './folder-supervisor';

/**
 * The folder in its own thread: folds and merges are CPU work in batches (tens of ms each),
 * which would otherwise hold up the requests on the service's event loop. The thread has its
 * own pool of three connections (a fold and a merge beside it, and the rest); what it reports reaches the service's /metrics by messages.
 * One thread is one run of the folder (folder-supervisor.ts): a round that fails ends the
 * thread with that error, and so does anything else uncaught in it; the supervisor on the
 * main thread logs the death and starts a new thread.
 */
export interface FolderThreadOptions extends FoldSettings {
  databaseUrl: string;
  logLevel: string;
}

type Report =
  | { folded: number; seconds: number; collectionId: string }
  | { merged: number; seconds: number; collectionId: string };

/**
 * How many nice steps the thread runs below the process (Linux keeps a nice value per thread;
 * os.setPriority(0, …) on a thread sets its own): on a busy machine a fold or merge gets a
 * tenth of the CPU time a request thread gets beside it (CFS weights: 1,024 at nice 0, 110 at
 * 10), so the folds and merges after a bulk load yield to searches. Relative to the process,
 * not an absolute 10: a process run at nice -10 (the bench's `nice -n -10`) put its folder 20
 * steps below its requests and its PostgreSQL, a hundredth of their weight, and on a busy
 * machine the folder fell thousands of documents behind during a load (5,876 pending at the
 * end of a 100,000-document load on 2026-11-27), which every search right after then matched
 * as pending rows. At most 19; where a thread's priority cannot be lowered, it keeps the
 * process's.
 */
export const FOLDER_THREAD_NICE_STEPS = 10;

/** The folder thread's nice value for a process at `processNice`. */
export function folderThreadNice(processNice: number): number {
  return Math.min(19, processNice + FOLDER_THREAD_NICE_STEPS);
}

/** The compiled thread entry, beside this module (under dist/). */
const COMPILED_ENTRY = path.join(__dirname, 'folder-thread.js');

/** Whether the compiled thread entry exists (it does under dist/, not under ts tests). */
export function folderThreadAvailable(): boolean {
  return __filename.endsWith('.js');
}

/**
 * Starts the folder in a new thread. `entry`: the file the thread runs; the compiled
 * folder-thread.js by default (the tests give a loader of the TypeScript sources).
 */
export function createFolderThread(
  opts: FolderThreadOptions,
  observer: FolderObserver | undefined,
  entry = COMPILED_ENTRY,
): SupervisedRun {
  const worker = new Worker(entry, { workerData: opts });
  let stopping = false;
  let failure: Error | null = null;
  worker.on('message', (m: Report) => {
    if ('folded' in m) observer?.folded(m.folded, m.seconds, m.collectionId);
    else if ('merged' in m) observer?.merged(m.seconds, m.collectionId);
  });
  worker.on('error', (err) => (failure = err));
  const ended = new Promise<void>((resolve, reject) =>
    worker.once('exit', (code) => {
      if (stopping && !failure) resolve();
      else
        reject(
          new Error(
            `folder thread exited with code ${code}${failure ? `: ${failure.message}` : ''}`,
            { cause: failure ?? undefined },
          ),
        );
    }),
  );
  ended.catch(() => {}); // its supervisor handles it
  return {
    ended,
    async stop() {
      stopping = true;
      worker.postMessage('stop');
      await ended.catch(() => {});
    },
    async terminate() {
      await worker.terminate();
    },
  };
}

// the thread itself
if (!isMainThread && parentPort && (workerData as FolderThreadOptions | undefined)?.databaseUrl) {
  const opts = workerData as FolderThreadOptions;
  const port = parentPort;
  try {
    os.setPriority(0, folderThreadNice(os.getPriority(0)));
  } catch {
    // not allowed here: the thread runs at the process's priority
  }
  const pool = createPool(opts.databaseUrl, 3);
  const folder = createIndexFolder({
    ...opts,
    pool,
    logger: createLogger('search-service', opts.logLevel),
    observer: {
      folded: (n, seconds, collectionId) => port.postMessage({ folded: n, seconds, collectionId }),
      merged: (seconds, collectionId) => port.postMessage({ merged: 1, seconds, collectionId }),
    },
  });
  port.on('message', (m) => {
    if (m === 'stop') void folder.stop();
  });
  folder.run().then(
    async () => {
      await pool.end();
      port.close();
    },
    (err: unknown) => {
      // the thread dies with the cause; its 'error' event carries it to the supervisor
      throw err;
    },
  );
}
