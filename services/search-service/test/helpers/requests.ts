import request from 'supertest';
import type { SearchApp } from '../../src/app';

/** A collection as the tests use it: its id and API key. */
export interface TestCollection {
  cid: string;
  apikey: string;
}

/** A valid doc (JSON text) with the required fields; `extra` adds or overrides fields. */
export function docJson(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    icontents_title: 'a title',
    icontents_body: 'a body',
    score_regdate: 1700000000,
    ...extra,
  });
}

/** application/x-www-form-urlencoded text of these parameters (UTF-8). */
export function form(params: Record<string, string | number | undefined>): string {
  return Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
}

export type Placement = 'query' | 'body';

/** One request with its parameters in the query string or in a form body. */
export function call(
  app: SearchApp,
  method: 'get' | 'post' | 'put' | 'delete',
  path: string,
  params: Record<string, string | number | undefined>,
  placement: Placement = 'body',
): request.Test {
  const text = form(params);
  const agent = request(app);
  if (placement === 'query') return agent[method](text ? `${path}?${text}` : path);
  return agent[method](path).set('Content-Type', 'application/x-www-form-urlencoded').send(text);
}

/** The client of one collection: the six operations with their parameters. */
export function client(app: SearchApp, c: TestCollection, placement: Placement = 'body') {
  const base = `/v2/${c.cid}`;
  const withKey = (p: Record<string, string | number | undefined>) => ({ apikey: c.apikey, ...p });
  return {
    add: (dockey: string, doc: string, force?: number) =>
      call(app, 'post', `${base}/docs`, withKey({ dockey, doc, force }), placement),
    update: (dockey: string, doc: string) =>
      call(app, 'put', `${base}/docs`, withKey({ dockey, doc }), placement),
    updateField: (dockey: string, fieldname: string, fieldvalue: string) =>
      call(
        app,
        'put',
        `${base}/docs/fields`,
        withKey({ dockey, fieldname, fieldvalue }),
        placement,
      ),
    delete: (dockey: string) => call(app, 'delete', `${base}/docs`, withKey({ dockey }), placement),
    status: (format = 'json') =>
      call(app, 'get', `${base}/status/${format}`, withKey({}), placement),
    search: (params: Record<string, string | number | undefined>, format = 'json') =>
      call(
        app,
        'get',
        `${base}/search/${format}`,
        withKey(params),
        placement === 'body' ? 'query' : placement,
      ),
  };
}

/** The document_count a collection's status answers. */
export async function statusDocumentCount(app: SearchApp, c: TestCollection): Promise<number> {
  const res = await client(app, c).status();
  return JSON.parse(res.text).document_count;
}

/** A search's JSON answer (it must be a 200) without its querytime, which differs every time. */
export async function answerWithoutTime(
  app: SearchApp,
  c: TestCollection,
  params: Record<string, string | number>,
): Promise<Record<string, unknown>> {
  const res = await client(app, c).search(params);
  if (res.status !== 200) throw new Error(`search answered ${res.status}: ${res.text}`);
  const { querytime, ...rest } = JSON.parse(res.text) as Record<string, unknown>;
  if (typeof querytime !== 'number') throw new Error(`querytime ${String(querytime)}`);
  return rest;
}
