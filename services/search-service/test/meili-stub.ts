import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiError, type MeiliStub, type RecordedRequest } from './meili-stub/api';
import { createFaults } from './meili-stub/faults';
import { createIndexStore } from './meili-stub/indexes';
import { createRoutes } from './meili-stub/routes';
import { createTaskQueue } from './meili-stub/tasks';

export type { MeiliStub, RecordedRequest } from './meili-stub/api';

/**
 * A small stand-in for a Meilisearch server (no real one can run on these machines): records
 * every request, keeps documents per index, answers writes with enqueued tasks that it
 * processes in order (like Meilisearch, one queue), and can be told to fail: HTTP errors,
 * hanging requests, failed or slow tasks. Search is naive (every query word must occur in
 * one of the text fields) but honours the filters, sort and page/hitsPerPage the engine sends.
 * Its parts are in meili-stub/: the API's shapes, the indexes, the task queue, the faults a
 * test asks for, the routes and the search.
 */
export async function startMeiliStub(): Promise<MeiliStub> {
  const requests: RecordedRequest[] = [];
  const store = createIndexStore();
  const faults = createFaults();
  const hungResponses: http.ServerResponse[] = [];

  const stub: MeiliStub = {
    url: '',
    requests,
    history: store.history,
    log: store.log,
    taskDelayMs: 0,
    down: false,
    onTaskDone: null,
    searchHandler: null,
    documents: (uid = 'documents') => store.indexes.get(uid)?.docs ?? new Map(),
    settings: (uid = 'documents') => store.indexes.get(uid)?.settings ?? {},
    failRequests: faults.failRequests,
    hangRequests: faults.hangRequests,
    failTasks: faults.failTasks,
    pendingTasks: () => queue.pending(),
    reset() {
      requests.length = 0;
      faults.reset();
      stub.down = false;
      stub.taskDelayMs = 0;
      stub.onTaskDone = null;
    },
    async close() {
      queue.stop();
      for (const res of hungResponses) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const queue = createTaskQueue(stub);
  const route = createRoutes({ stub, store, queue, faults });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (stub.down) {
        res.destroy();
        return;
      }
      const url = new URL(req.url ?? '/', 'http://stub');
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body: text === '' ? undefined : JSON.parse(text),
      };
      requests.push(recorded);
      if (faults.hangs(recorded)) {
        hungResponses.push(res);
        return;
      }
      const failStatus = faults.failure(recorded);
      if (failStatus !== undefined) {
        res.writeHead(failStatus, { 'content-type': 'application/json' });
        res.end(JSON.stringify(apiError('internal', 'stub failure', 'internal')));
        return;
      }
      let out: { status: number; body?: unknown };
      try {
        out = route(recorded);
      } catch (err) {
        out = { status: 500, body: apiError('internal', String(err), 'internal') };
      }
      res.writeHead(out.status, { 'content-type': 'application/json' });
      res.end(out.body === undefined ? '' : JSON.stringify(out.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return stub;
}
