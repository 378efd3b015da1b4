import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small stand-in for a Meilisearch server (no real one can run on these machines): records
 * every request, keeps documents per index, answers writes with enqueued tasks that it
 * processes in order (like Meilisearch, one queue), and can be told to fail: HTTP errors,
 * hanging requests, failed or slow tasks. Search is naive (every query word must occur in
 * one of the text fields) but honours the filters, sort and page/hitsPerPage the engine sends.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

type Doc = Record<string, unknown> & { id: string };

interface Task {
  uid: number;
  indexUid: string | null;
  type: string;
  status: 'enqueued' | 'processing' | 'succeeded' | 'failed' | 'canceled';
  error: { message: string; code: string; type: string; link: string } | null;
  enqueuedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  apply: () => { code: string; message: string; type?: string } | void;
}

export interface MeiliStub {
  url: string;
  requests: RecordedRequest[];
  /** documents of an index by id */
  documents(indexUid?: string): Map<string, Doc>;
  settings(indexUid?: string): Record<string, unknown>;
  /** every document write applied, in order: [id, version or 'deleted'] */
  history: Array<[string, string]>;
  /** the same with documents.id: [id, doc_id, version] or [id, 'deleted'] */
  log: Array<[string, string, string] | [string, 'deleted']>;
  /** the next n requests matching `match` answer `status` (default 503) */
  failRequests(n: number, status?: number, match?: (r: RecordedRequest) => boolean): void;
  /** the next n requests matching `match` never answer (client timeout) */
  hangRequests(n: number, match?: (r: RecordedRequest) => boolean): void;
  /** the next n document tasks fail (type invalid_request → rejected, internal → transient) */
  failTasks(
    n: number,
    type?: 'invalid_request' | 'internal',
    match?: (docs: Doc[]) => boolean,
  ): void;
  /** tasks take this long to process (default 0) */
  taskDelayMs: number;
  /** every request fails with a closed connection while true */
  down: boolean;
  /** runs once, after the next document task took effect and before it shows as succeeded */
  onTaskDone: ((task: { uid: number; type: string }) => Promise<void> | void) | null;
  /** canned search answer; default is the naive search */
  searchHandler: ((indexUid: string, body: Record<string, unknown>) => unknown) | null;
  pendingTasks(): number;
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_SETTINGS = {
  displayedAttributes: ['*'],
  searchableAttributes: ['*'],
  filterableAttributes: [],
  sortableAttributes: [],
  rankingRules: ['words', 'typo', 'proximity', 'attribute', 'sort', 'exactness'],
  localizedAttributes: null,
  typoTolerance: { enabled: true, minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 } },
  prefixSearch: 'indexingTime',
  pagination: { maxTotalHits: 1000 },
};

function apiError(code: string, message: string, type = 'invalid_request') {
  return { message, code, type, link: `https://docs.meilisearch.com/errors#${code}` };
}

function parseFilter(filter: unknown): Array<(d: Doc) => boolean> {
  const parts = Array.isArray(filter) ? filter : filter ? [filter] : [];
  return parts.map((p: string) => {
    let m = /^collection_id = "(.*)"$/.exec(p);
    if (m) return (d: Doc) => d.collection_id === m![1];
    m = /^(NOT )?categories IN \[([0-9, ]*)\]$/.exec(p);
    if (m) {
      const not = !!m[1];
      const set = m[2]!
        .split(',')
        .filter((s) => s.trim() !== '')
        .map(Number);
      return (d: Doc) => ((d.categories as number[]) ?? []).some((c) => set.includes(c)) !== not;
    }
    m = /^score_regdate (>=|<=) ([0-9]+)$/.exec(p);
    if (m) {
      const n = Number(m[2]);
      return m[1] === '>='
        ? (d: Doc) => (d.score_regdate as number) >= n
        : (d: Doc) => (d.score_regdate as number) <= n;
    }
    throw new Error(`stub cannot parse filter ${p}`);
  });
}

function words(value: unknown): string[] {
  if (typeof value === 'string') return [value.toLowerCase()];
  if (value && typeof value === 'object') return Object.values(value).flatMap(words);
  return [];
}

export async function startMeiliStub(): Promise<MeiliStub> {
  const requests: RecordedRequest[] = [];
  const indexes = new Map<string, { docs: Map<string, Doc>; settings: Record<string, unknown> }>();
  const tasks: Task[] = [];
  const queue: Task[] = [];
  const history: Array<[string, string]> = [];
  const log: MeiliStub['log'] = [];
  let failing: Array<{ n: number; status: number; match: (r: RecordedRequest) => boolean }> = [];
  let hanging: Array<{ n: number; match: (r: RecordedRequest) => boolean }> = [];
  let taskFailures: Array<{ n: number; type: string; match: (docs: Doc[]) => boolean }> = [];
  const hungResponses: http.ServerResponse[] = [];
  let processing = false;
  let timer: NodeJS.Timeout | null = null;

  const stub: MeiliStub = {
    url: '',
    requests,
    history,
    log,
    taskDelayMs: 0,
    down: false,
    onTaskDone: null,
    searchHandler: null,
    documents: (uid = 'documents') => indexes.get(uid)?.docs ?? new Map(),
    settings: (uid = 'documents') => indexes.get(uid)?.settings ?? {},
    failRequests(n, status = 503, match = () => true) {
      failing.push({ n, status, match });
    },
    hangRequests(n, match = () => true) {
      hanging.push({ n, match });
    },
    failTasks(n, type = 'invalid_request', match = () => true) {
      taskFailures.push({ n, type, match });
    },
    pendingTasks: () => queue.length + (processing ? 1 : 0),
    reset() {
      requests.length = 0;
      failing = [];
      hanging = [];
      taskFailures = [];
      stub.down = false;
      stub.taskDelayMs = 0;
      stub.onTaskDone = null;
    },
    async close() {
      if (timer) clearTimeout(timer);
      for (const res of hungResponses) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  function index(uid: string) {
    let i = indexes.get(uid);
    if (!i) {
      i = { docs: new Map(), settings: structuredClone(DEFAULT_SETTINGS) };
      indexes.set(uid, i);
    }
    return i;
  }

  function enqueue(indexUid: string | null, type: string, apply: Task['apply']) {
    const task: Task = {
      uid: tasks.length,
      indexUid,
      type,
      status: 'enqueued',
      error: null,
      enqueuedAt: new Date().toISOString(),
      startedAt: null,
      finishedAt: null,
      apply,
    };
    tasks.push(task);
    queue.push(task);
    schedule();
    return { taskUid: task.uid, indexUid, status: 'enqueued', type, enqueuedAt: task.enqueuedAt };
  }

  function schedule() {
    if (processing || queue.length === 0) return;
    processing = true;
    const task = queue.shift()!;
    task.status = 'processing';
    task.startedAt = new Date().toISOString();
    timer = setTimeout(async () => {
      timer = null;
      let status: Task['status'] = 'succeeded';
      try {
        const failure = task.apply();
        if (failure) {
          status = 'failed';
          task.error = apiError(failure.code, failure.message, failure.type);
        }
      } catch (err) {
        status = 'failed';
        task.error = apiError('internal', String(err), 'internal');
      }
      // the hook runs after the task took effect, before anyone can see it finished
      const hook = stub.onTaskDone;
      if (hook && status === 'succeeded' && task.type.startsWith('document')) {
        stub.onTaskDone = null;
        await hook({ uid: task.uid, type: task.type });
      }
      task.status = status;
      task.finishedAt = new Date().toISOString();
      processing = false;
      schedule();
    }, stub.taskDelayMs);
  }

  function documentTaskFailure(docs: Doc[]) {
    const f = taskFailures.find((t) => t.n > 0 && t.match(docs));
    if (!f) return undefined;
    f.n--;
    return {
      code: f.type === 'internal' ? 'internal' : 'invalid_document_fields',
      message: 'stub task failure',
      type: f.type,
    };
  }

  function naiveSearch(uid: string, body: Record<string, unknown>) {
    const i = indexes.get(uid);
    if (!i)
      return { status: 404, body: apiError('index_not_found', `Index \`${uid}\` not found.`) };
    const filters = parseFilter(body.filter);
    const terms = String(body.q ?? '')
      .toLowerCase()
      .split(/\s+/)
      .filter((t) => t !== '');
    let hits = [...i.docs.values()].filter(
      (d) =>
        filters.every((f) => f(d)) && terms.every((t) => words(d.text).some((w) => w.includes(t))),
    );
    // like the engine's ranking rules: (sort=0: every word in the title first), then newest
    // score_regdate, then newest doc_seq
    const sort = body.sort as string[] | undefined;
    const inTitle = (d: Doc) =>
      terms.every((t) => words((d.text as { title: string }).title).some((w) => w.includes(t)))
        ? 0
        : 1;
    hits = hits.sort(
      (a, b) =>
        (sort ? 0 : inTitle(a) - inTitle(b)) ||
        (b.score_regdate as number) - (a.score_regdate as number) ||
        ((b.doc_seq as number) ?? 0) - ((a.doc_seq as number) ?? 0),
    );
    const maxTotalHits = (i.settings.pagination as { maxTotalHits: number }).maxTotalHits;
    hits = hits.slice(0, maxTotalHits);
    const hitsPerPage = Number(body.hitsPerPage ?? 20);
    const page = Number(body.page ?? 1);
    const retrieve = body.attributesToRetrieve as string[] | undefined;
    const pageHits = hits.slice((page - 1) * hitsPerPage, page * hitsPerPage).map((d) => {
      if (!retrieve) return d;
      return Object.fromEntries(retrieve.map((k) => [k, d[k]]));
    });
    return {
      status: 200,
      body: {
        hits: pageHits,
        query: body.q,
        processingTimeMs: 0,
        hitsPerPage,
        page,
        totalPages: Math.ceil(hits.length / hitsPerPage),
        totalHits: hits.length,
      },
    };
  }

  function route(r: RecordedRequest): { status: number; body?: unknown } {
    const p = r.path;
    let m: RegExpExecArray | null;
    if (r.method === 'GET' && p === '/health')
      return { status: 200, body: { status: 'available' } };
    if (r.method === 'GET' && (m = /^\/tasks\/(\d+)$/.exec(p))) {
      const t = tasks[Number(m[1])];
      if (!t) return { status: 404, body: apiError('task_not_found', 'task not found') };
      const { apply: _apply, ...view } = t;
      return {
        status: 200,
        body: { ...view, batchUid: t.uid, canceledBy: null, details: {}, duration: null },
      };
    }
    if (r.method === 'POST' && p === '/indexes') {
      const body = r.body as { uid: string; primaryKey?: string };
      return {
        status: 202,
        body: enqueue(body.uid, 'indexCreation', () => {
          if (indexes.has(body.uid)) return { code: 'index_already_exists', message: 'exists' };
          index(body.uid);
        }),
      };
    }
    if (r.method === 'DELETE' && (m = /^\/indexes\/([^/]+)$/.exec(p))) {
      const uid = m[1]!;
      return {
        status: 202,
        body: enqueue(uid, 'indexDeletion', () => {
          if (!indexes.delete(uid)) return { code: 'index_not_found', message: 'not found' };
        }),
      };
    }
    if (r.method === 'GET' && (m = /^\/indexes\/([^/]+)\/settings$/.exec(p))) {
      const i = indexes.get(m[1]!);
      if (!i) return { status: 404, body: apiError('index_not_found', 'not found') };
      return { status: 200, body: i.settings };
    }
    if (r.method === 'PATCH' && (m = /^\/indexes\/([^/]+)\/settings$/.exec(p))) {
      const uid = m[1]!;
      const patch = r.body as Record<string, unknown>;
      return {
        status: 202,
        body: enqueue(uid, 'settingsUpdate', () => {
          Object.assign(index(uid).settings, structuredClone(patch));
        }),
      };
    }
    if (r.method === 'POST' && (m = /^\/indexes\/([^/]+)\/documents$/.exec(p))) {
      const uid = m[1]!;
      const docs = structuredClone(r.body) as Doc[];
      for (const d of docs) {
        if (typeof d.id !== 'string' || !/^[A-Za-z0-9_-]{1,511}$/.test(d.id)) {
          return { status: 400, body: apiError('invalid_document_id', `bad id ${String(d.id)}`) };
        }
      }
      return {
        status: 202,
        body: enqueue(uid, 'documentAdditionOrUpdate', () => {
          const failure = documentTaskFailure(docs);
          if (failure) return failure;
          const i = index(uid);
          for (const d of docs) {
            i.docs.set(d.id, d);
            history.push([d.id, String(d.version)]);
            log.push([d.id, String(d.doc_id), String(d.version)]);
          }
        }),
      };
    }
    if (r.method === 'POST' && (m = /^\/indexes\/([^/]+)\/documents\/delete-batch$/.exec(p))) {
      const uid = m[1]!;
      const ids = r.body as string[];
      return {
        status: 202,
        body: enqueue(uid, 'documentDeletion', () => {
          const failure = documentTaskFailure(ids.map((id) => ({ id })));
          if (failure) return failure;
          const i = indexes.get(uid);
          if (!i) return { code: 'index_not_found', message: 'not found' };
          for (const id of ids) {
            i.docs.delete(id);
            history.push([id, 'deleted']);
            log.push([id, 'deleted']);
          }
        }),
      };
    }
    if (r.method === 'POST' && (m = /^\/indexes\/([^/]+)\/documents\/delete$/.exec(p))) {
      const uid = m[1]!;
      const filters = parseFilter((r.body as { filter: string }).filter);
      return {
        status: 202,
        body: enqueue(uid, 'documentDeletion', () => {
          const i = indexes.get(uid);
          if (!i) return { code: 'index_not_found', message: 'not found' };
          for (const d of [...i.docs.values()]) {
            if (filters.every((f) => f(d))) {
              i.docs.delete(d.id);
              history.push([d.id, 'deleted']);
              log.push([d.id, 'deleted']);
            }
          }
        }),
      };
    }
    if (r.method === 'POST' && (m = /^\/indexes\/([^/]+)\/documents\/fetch$/.exec(p))) {
      const i = indexes.get(m[1]!);
      if (!i) return { status: 404, body: apiError('index_not_found', 'not found') };
      const body = r.body as {
        filter?: string;
        fields?: string[];
        offset?: number;
        limit?: number;
      };
      const filters = parseFilter(body.filter);
      const all = [...i.docs.values()].filter((d) => filters.every((f) => f(d)));
      const offset = body.offset ?? 0;
      const limit = body.limit ?? 20;
      const results = all
        .slice(offset, offset + limit)
        .map((d) => (body.fields ? Object.fromEntries(body.fields.map((k) => [k, d[k]])) : d));
      return { status: 200, body: { results, offset, limit, total: all.length } };
    }
    if (r.method === 'POST' && (m = /^\/indexes\/([^/]+)\/search$/.exec(p))) {
      const body = r.body as Record<string, unknown>;
      if (stub.searchHandler) return { status: 200, body: stub.searchHandler(m[1]!, body) };
      return naiveSearch(m[1]!, body);
    }
    return { status: 404, body: apiError('not_found', `stub has no route ${r.method} ${p}`) };
  }

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
      const hang = hanging.find((h) => h.n > 0 && h.match(recorded));
      if (hang) {
        hang.n--;
        hungResponses.push(res);
        return;
      }
      const fail = failing.find((f) => f.n > 0 && f.match(recorded));
      if (fail) {
        fail.n--;
        res.writeHead(fail.status, { 'content-type': 'application/json' });
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
