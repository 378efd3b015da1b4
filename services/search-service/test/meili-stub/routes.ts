import { apiError, type Answer, type Doc, type MeiliStub, type RecordedRequest } from './api';
import type { Faults } from './faults';
import type { IndexStore } from './indexes';
import { fetchDocuments, naiveSearch, parseFilter } from './search';
import type { TaskQueue } from './tasks';

/** The Meilisearch routes the engine calls: health, tasks, indexes, settings, documents, search. */
export function createRoutes({
  stub,
  store,
  queue,
  faults,
}: {
  stub: Pick<MeiliStub, 'searchHandler'>;
  store: IndexStore;
  queue: TaskQueue;
  faults: Faults;
}) {
  const { indexes, history, log } = store;
  const enqueued = (...args: Parameters<TaskQueue['enqueue']>): Answer => ({
    status: 202,
    body: queue.enqueue(...args),
  });

  const search = (uid: string, body: Record<string, unknown>): Answer =>
    stub.searchHandler
      ? { status: 200, body: stub.searchHandler(uid, body) }
      : naiveSearch(uid, indexes.get(uid), body);

  return function route(r: RecordedRequest): Answer {
    const p = r.path;
    let m: RegExpExecArray | null;
    if (r.method === 'GET' && p === '/health')
      return { status: 200, body: { status: 'available' } };
    if (r.method === 'GET' && (m = /^\/tasks\/(\d+)$/.exec(p))) return queue.show(Number(m[1]));
    if (r.method === 'POST' && p === '/indexes') {
      const body = r.body as { uid: string; primaryKey?: string };
      return enqueued(body.uid, 'indexCreation', () => {
        if (indexes.has(body.uid)) return { code: 'index_already_exists', message: 'exists' };
        store.index(body.uid);
        return undefined;
      });
    }
    if (r.method === 'DELETE' && (m = /^\/indexes\/([^/]+)$/.exec(p))) {
      const uid = m[1]!;
      return enqueued(uid, 'indexDeletion', () => {
        if (!indexes.delete(uid)) return { code: 'index_not_found', message: 'not found' };
        return undefined;
      });
    }
    if (r.method === 'GET' && (m = /^\/indexes\/([^/]+)\/settings$/.exec(p))) {
      const i = indexes.get(m[1]!);
      if (!i) return { status: 404, body: apiError('index_not_found', 'not found') };
      return { status: 200, body: i.settings };
    }
    if (r.method === 'PATCH' && (m = /^\/indexes\/([^/]+)\/settings$/.exec(p))) {
      const uid = m[1]!;
      const patch = r.body as Record<string, unknown>;
      return enqueued(uid, 'settingsUpdate', () => {
        Object.assign(store.index(uid).settings, structuredClone(patch));
      });
    }
    if (r.method === 'POST' && (m = /^\/indexes\/([^/]+)\/documents$/.exec(p))) {
      const uid = m[1]!;
      const docs = structuredClone(r.body) as Doc[];
      for (const d of docs) {
        if (typeof d.id !== 'string' || !/^[A-Za-z0-9_-]{1,511}$/.test(d.id)) {
          return { status: 400, body: apiError('invalid_document_id', `bad id ${String(d.id)}`) };
        }
      }
      return enqueued(uid, 'documentAdditionOrUpdate', () => {
        const failure = faults.documentTaskFailure(docs);
        if (failure) return failure;
        const i = store.index(uid);
        for (const d of docs) {
          i.docs.set(d.id, d);
          history.push([d.id, String(d.version)]);
          log.push([d.id, String(d.doc_id), String(d.version)]);
        }
        return undefined;
      });
    }
    if (r.method === 'POST' && (m = /^\/indexes\/([^/]+)\/documents\/delete-batch$/.exec(p))) {
      const uid = m[1]!;
      const ids = r.body as string[];
      return enqueued(uid, 'documentDeletion', () => {
        const failure = faults.documentTaskFailure(ids.map((id) => ({ id })));
        if (failure) return failure;
        const i = indexes.get(uid);
        if (!i) return { code: 'index_not_found', message: 'not found' };
        for (const id of ids) store.deleted(i, id);
        return undefined;
      });
    }
    if (r.method === 'POST' && (m = /^\/indexes\/([^/]+)\/documents\/delete$/.exec(p))) {
      const uid = m[1]!;
      const filters = parseFilter((r.body as { filter: string }).filter);
      return enqueued(uid, 'documentDeletion', () => {
        const i = indexes.get(uid);
        if (!i) return { code: 'index_not_found', message: 'not found' };
        for (const d of [...i.docs.values()]) {
          if (filters.every((f) => f(d))) store.deleted(i, d.id);
        }
        return undefined;
      });
    }
    if (r.method === 'POST' && (m = /^\/indexes\/([^/]+)\/documents\/fetch$/.exec(p)))
      return fetchDocuments(indexes.get(m[1]!), r.body);
    if (r.method === 'POST' && (m = /^\/indexes\/([^/]+)\/search$/.exec(p)))
      return search(m[1]!, r.body as Record<string, unknown>);
    if (r.method === 'POST' && p === '/multi-search') {
      const queries = (r.body as { queries: Array<Record<string, unknown>> }).queries;
      const results: unknown[] = [];
      for (const { indexUid, ...query } of queries) {
        const answer = search(String(indexUid), query);
        if (answer.status !== 200) return answer;
        results.push({ indexUid, ...(answer.body as object) });
      }
      return { status: 200, body: { results } };
    }
    return { status: 404, body: apiError('not_found', `stub has no route ${r.method} ${p}`) };
  };
}
