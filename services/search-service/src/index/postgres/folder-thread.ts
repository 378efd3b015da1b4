import path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { createLogger, createPool, type Logger } from '@hub/service-kit';
import { createIndexFolder, type FolderOptions } from './folder';
import type { FolderObserver } from './folder-metrics';

/**
 * The folder in its own thread: folds and merges are CPU work in batches (tens of ms each),
 * which would otherwise hold up the requests on the service's event loop. The thread has its
 * own pool of two connections; what it reports reaches the service's /metrics by messages.
 */
export interface FolderThreadOptions extends Omit<FolderOptions, 'pool' | 'logger' | 'observer'> {
  databaseUrl: string;
  logLevel: string;
}

type Report =
  | { lag: number }
  | { folded: number; seconds: number }
  | { merged: number; seconds: number }
  | { error: string };

export interface FolderThread {
  /** Lets the current fold or merge finish, then ends the thread. */
  stop(): Promise<void>;
}

/** Whether the compiled thread entry exists (it does under dist/, not under ts tests). */
export function folderThreadAvailable(): boolean {
  return __filename.endsWith('.js');
}

export function createFolderThread(
  opts: FolderThreadOptions,
  observer: FolderObserver | undefined,
  logger: Logger,
): FolderThread {
  const worker = new Worker(path.join(__dirname, 'folder-thread.js'), { workerData: opts });
  worker.on('message', (m: Report) => {
    if ('lag' in m) observer?.lag(m.lag);
    else if ('folded' in m) observer?.folded(m.folded, m.seconds);
    else if ('merged' in m) observer?.merged(m.seconds);
  });
  worker.on('error', (err) => logger.error({ err }, 'search index folder thread failed'));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      worker.postMessage('stop');
      await exited;
    },
  };
}

// the thread itself
if (!isMainThread && parentPort && (workerData as FolderThreadOptions | undefined)?.databaseUrl) {
  const opts = workerData as FolderThreadOptions;
  const port = parentPort;
  const pool = createPool(opts.databaseUrl, 2);
  const folder = createIndexFolder({
    ...opts,
    pool,
    logger: createLogger('search-service', opts.logLevel),
    observer: {
      lag: (n) => port.postMessage({ lag: n }),
      folded: (n, seconds) => port.postMessage({ folded: n, seconds }),
      merged: (seconds) => port.postMessage({ merged: 1, seconds }),
    },
  });
  folder.start();
  port.on('message', async (m) => {
    if (m !== 'stop') return;
    await folder.stop();
    await pool.end();
    port.close();
  });
}
