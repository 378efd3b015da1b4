// The load generator's HTTP client of the service: keep-alive requests, the admin API's
// collections, searches.
import http from 'node:http';
import { URLSearchParams } from 'node:url';
import { createRawHttp } from './raw-http.mjs';
import { CONCURRENCY, DOCS } from './settings.mjs';

export function createClient({ port, token }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY * 4 });
  /** the searches and the writes: nothing allocated per answer whose body is not kept (raw-http.mjs) */
  const rawHttp = createRawHttp({ port, connections: CONCURRENCY * 4 });
  /**
   * resolves with { status, body (a Buffer) }; a form body or none, with no headers of the
   * caller's (adds, updates, deletes): through rawHttp, else node:http (the admin API)
   */
  const send = (method, pathAndQuery, body, headers) =>
    headers === undefined
      ? rawHttp.request(method, pathAndQuery, body ?? null, true)
      : sendHttp(method, pathAndQuery, body, headers);
  const sendHttp = (method, pathAndQuery, body, headers) =>
    new Promise((resolve, reject) => {
      const h = body
        ? {
            'Content-Type': headers['Content-Type'] ?? 'application/x-www-form-urlencoded',
            'Content-Length': Buffer.byteLength(body),
            ...headers,
          }
        : headers;
      const req = http.request(
        { host: '127.0.0.1', port, method, path: pathAndQuery, agent, headers: h },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks) }));
        },
      );
      req.on('error', reject);
      if (body) req.write(body);
      req.end();
    });
  const adminHeaders = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };

  /** the search of query kind k (query-kinds.mjs) in collection c */
  const searchPath = (c, k) =>
    `/v2/${c.cid}/search/json?${new URLSearchParams({ apikey: c.apikey, ...Object.fromEntries(Object.entries(k.params).map(([a, b]) => [a, String(b)])) })}`;

  return {
    send,
    searchPath,
    /** a new collection (admin API): { cid, apikey } */
    async newCollection() {
      const res = await send(
        'POST',
        '/admin/collections',
        JSON.stringify({ max_documents: DOCS * 3, max_api_calls: 1e12 }),
        adminHeaders,
      );
      if (res.status !== 201) throw new Error(`create collection: ${res.status} ${res.body}`);
      const { collection_id: cid, apikey } = JSON.parse(res.body);
      return { cid, apikey };
    },
    deleteCollection: (c) => send('DELETE', `/admin/collections/${c.cid}`, undefined, adminHeaders),
    /** searches refused with 429 (the collection's queue full or its wait too long) */
    refused: 0,
    /** searches answered neither 200 nor 429: `kind: status body` */
    failed: [],
    /**
     * a search; a 429 is counted and the search sent again after its Retry-After (1 s); any
     * other answer but 200 is recorded in failed (the caller sees its status). body: false when
     * the caller does not read a 200's body (it is then null: a measurement's searches)
     */
    async search(c, k, { body = true } = {}) {
      for (;;) {
        const res = await rawHttp.get(searchPath(c, k), body);
        if (res.status !== 429) {
          if (res.status !== 200) this.failed.push(`${k.kind}: ${res.status} ${res.body}`);
          return res;
        }
        this.refused++;
        await new Promise((r) => setTimeout(r, 1000));
      }
    },
    close() {
      agent.destroy();
      rawHttp.close();
    },
  };
}
