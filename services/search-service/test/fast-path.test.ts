import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import request from 'supertest';
import type { SearchApp } from '../src/app';
import {
  client,
  closeAfterAll,
  docJson,
  form,
  makeApp,
  newCollection,
  useSearchDatabase,
  type TestCollection,
} from './helpers/harness';

/**
 * The fast path (src/http/fast-path.ts) against Express: one app with it (the default) and one
 * with SEARCH_FAST_PATH=false, each with a collection holding the same documents, get the same
 * requests; every answer must be the same (status, headers but Date and X-Request-Id, body),
 * and the fast path must have taken exactly the requests it is meant to take.
 */

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

interface Sent {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** sent in chunks (Transfer-Encoding: chunked) */
  chunked?: boolean;
}

function send(port: number, s: Sent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: s.method, path: s.path, headers: s.headers ?? {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    if (s.body === undefined) req.end();
    else if (s.chunked) {
      const body = Buffer.from(s.body);
      req.write(body.subarray(0, 3));
      req.end(body.subarray(3));
    } else {
      req.setHeader('Content-Length', Buffer.byteLength(s.body));
      req.end(s.body);
    }
  });
}

/**
 * What must be equal: the headers but those of the moment (Date) and the request (its id), the
 * body but its querytime (and so its length, checked against the body on each side).
 */
function comparable(a: Answer, method: string): Answer {
  const { date: _date, 'x-request-id': id, 'content-length': length, ...headers } = a.headers;
  expect(id).toEqual(expect.any(String));
  if (method !== 'HEAD') expect(Number(length)).toBe(Buffer.byteLength(a.body));
  const body = a.body
    .replace(/"querytime":\d+/, '"querytime":0')
    .replace(/<querytime>\d+</, '<querytime>0<');
  return { ...a, headers, body };
}

function listen(app: SearchApp): Promise<number> {
  const server = http.createServer({ keepAlive: false }, app).listen(0, '127.0.0.1');
  closeAfterAll(() => new Promise((r) => server.close(r)));
  return new Promise((resolve) =>
    server.once('listening', () => resolve((server.address() as AddressInfo).port)),
  );
}

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

let fast: { app: SearchApp; port: number; c: TestCollection };
let plain: { app: SearchApp; port: number; c: TestCollection };

const db = useSearchDatabase();

beforeAll(async () => {
  const make = async (env: Record<string, string>) => {
    const app = makeApp(db, { env });
    const c = await newCollection(app);
    for (let i = 0; i < 3; i++) {
      const doc = docJson({ icontents_title: `fast path ${i}`, score_regdate: 1700000000 + i });
      expect((await client(app, c).add(`k${i}`, doc)).status).toBe(200);
    }
    return { app, port: await listen(app), c };
  };
  fast = await make({});
  plain = await make({ SEARCH_FAST_PATH: 'false' });
});

type Case = [name: string, taken: boolean, sent: (c: TestCollection) => Sent];

const search = (c: TestCollection, q: string, format = 'json') =>
  `/v2/${c.cid}/search/${format}?${q}`;
const key = (c: TestCollection, p: Record<string, string | number | undefined> = {}) =>
  form({ apikey: c.apikey, ...p });
const docsPath = (c: TestCollection) => `/v2/${c.cid}/docs`;
const added = (c: TestCollection, dockey: string, doc = docJson({ icontents_title: 'added' })) =>
  key(c, { dockey, doc });

const CASES: Case[] = [
  // searches the fast path takes
  ['a search (json)', true, (c) => ({ method: 'GET', path: search(c, key(c, { q: 'fast' })) })],
  [
    'a search (xml)',
    true,
    (c) => ({ method: 'GET', path: search(c, key(c, { q: 'path' }), 'xml') }),
  ],
  [
    'a search, sorted and paged',
    true,
    (c) => ({ method: 'GET', path: search(c, key(c, { q: 'fast', sort: 1, start: 1, len: 1 })) }),
  ],
  [
    'a search of another format',
    true,
    (c) => ({ method: 'GET', path: search(c, key(c, { q: 'fast' }), 'html') }),
  ],
  [
    'a search with a wrong apikey',
    true,
    (c) => ({ method: 'GET', path: search(c, form({ apikey: 'nope', q: 'fast' })) }),
  ],
  [
    'a search without apikey',
    true,
    (c) => ({ method: 'GET', path: search(c, form({ q: 'fast' })) }),
  ],
  [
    'a search of an unknown collection',
    true,
    () => ({ method: 'GET', path: `/v2/999999999/search/json?q=fast` }),
  ],
  ['a search without q', true, (c) => ({ method: 'GET', path: search(c, key(c)) })],
  [
    'a search with a bad escape in q',
    true,
    (c) => ({ method: 'GET', path: search(c, `${key(c)}&q=%ZZ`) }),
  ],
  [
    'a search with len=0',
    true,
    (c) => ({ method: 'GET', path: search(c, key(c, { q: 'fast', len: 0 })) }),
  ],
  [
    'a search with start=-1',
    true,
    (c) => ({ method: 'GET', path: search(c, key(c, { q: 'fast', start: -1 })) }),
  ],
  [
    'a search with Content-Length: 0',
    true,
    (c) => ({
      method: 'GET',
      path: search(c, key(c, { q: 'fast' })),
      headers: { 'Content-Length': '0' },
    }),
  ],
  // searches left to Express
  ['HEAD of a search', false, (c) => ({ method: 'HEAD', path: search(c, key(c, { q: 'fast' })) })],
  [
    'a search with its parameters in a body',
    false,
    (c) => ({
      method: 'GET',
      path: `/v2/${c.cid}/search/json`,
      headers: FORM,
      body: key(c, { q: 'fast' }),
    }),
  ],
  [
    'a search with a trailing slash',
    false,
    (c) => ({ method: 'GET', path: `/v2/${c.cid}/search/json/?${key(c, { q: 'fast' })}` }),
  ],
  [
    'a search in capitals',
    false,
    (c) => ({ method: 'GET', path: `/V2/${c.cid}/SEARCH/json?${key(c, { q: 'fast' })}` }),
  ],
  [
    'a search with an escaped format',
    false,
    (c) => ({ method: 'GET', path: `/v2/${c.cid}/search/%6Ason?${key(c, { q: 'fast' })}` }),
  ],
  ['a search POSTed', false, (c) => ({ method: 'POST', path: search(c, key(c, { q: 'fast' })) })],
  // adds the fast path takes
  [
    'an add',
    true,
    (c) => ({ method: 'POST', path: docsPath(c), headers: FORM, body: added(c, 'new') }),
  ],
  [
    'an add of a dockey that exists',
    true,
    (c) => ({ method: 'POST', path: docsPath(c), headers: FORM, body: added(c, 'k0') }),
  ],
  [
    'an add without Content-Type',
    true,
    (c) => ({ method: 'POST', path: docsPath(c), body: added(c, 'bare') }),
  ],
  [
    'an add of a doc that is not JSON',
    true,
    (c) => ({
      method: 'POST',
      path: docsPath(c),
      headers: FORM,
      body: key(c, { dockey: 'bad', doc: '{' }),
    }),
  ],
  [
    'an add without doc',
    true,
    (c) => ({
      method: 'POST',
      path: docsPath(c),
      headers: FORM,
      body: key(c, { dockey: 'nodoc' }),
    }),
  ],
  [
    'an add with a wrong apikey',
    true,
    (c) => ({
      method: 'POST',
      path: docsPath(c),
      headers: FORM,
      body: form({ apikey: 'nope', dockey: 'x', doc: docJson() }),
    }),
  ],
  [
    'an add in a Latin-1 form',
    true,
    (c) => ({
      method: 'POST',
      path: docsPath(c),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=iso-8859-1' },
      body: added(c, 'latin'),
    }),
  ],
  [
    'an add with its parameters in the query and no body',
    true,
    (c) => ({
      method: 'POST',
      path: `${docsPath(c)}?${added(c, 'inquery')}`,
      headers: { 'Content-Length': '0' },
    }),
  ],
  [
    'an add with a bad escape in the body',
    true,
    (c) => ({
      method: 'POST',
      path: docsPath(c),
      headers: FORM,
      body: `${key(c, { dockey: 'esc' })}&doc=%ZZ`,
    }),
  ],
  // adds left to Express
  [
    'an add of another Content-Type',
    false,
    (c) => ({
      method: 'POST',
      path: docsPath(c),
      headers: { 'Content-Type': 'text/plain' },
      body: added(c, 'text'),
    }),
  ],
  [
    'a gzipped add',
    false,
    (c) => ({
      method: 'POST',
      path: docsPath(c),
      headers: { ...FORM, 'Content-Encoding': 'gzip' },
      body: zlib.gzipSync(added(c, 'gz')),
    }),
  ],
  [
    'a chunked add',
    false,
    (c) => ({
      method: 'POST',
      path: docsPath(c),
      headers: FORM,
      body: added(c, 'chunked'),
      chunked: true,
    }),
  ],
  [
    'an add over the body limit',
    false,
    (c) => ({
      method: 'POST',
      path: docsPath(c),
      headers: FORM,
      body: added(c, 'big', docJson({ icontents_body: 'x'.repeat(1_100_000) })),
    }),
  ],
  [
    'an update',
    false,
    (c) => ({ method: 'PUT', path: docsPath(c), headers: FORM, body: added(c, 'k1') }),
  ],
];

describe('The fast path answers as Express does', () => {
  test.each(CASES)('%s', async (_name, taken, sent) => {
    const before = fast.app.services.fastPathRequests();
    const request = sent(fast.c);
    const viaFast = await send(fast.port, request);
    expect(fast.app.services.fastPathRequests() - before).toBe(taken ? 1 : 0);
    const viaExpress = await send(plain.port, sent(plain.c));
    expect(plain.app.services.fastPathRequests()).toBe(0);
    expect(comparable(viaFast, request.method)).toEqual(comparable(viaExpress, request.method));
  });
});

test('When the fast path answers, the metrics name the route as Express names it', async () => {
  const metrics = await request(fast.app).get('/metrics');
  expect(metrics.text).toContain('route="/v2/:cid/search/:format",status="200"');
  expect(metrics.text).toContain('route="/v2/:cid/docs",status="200"');
  expect(metrics.text).toContain('route="/v2/:cid/docs",status="406"');
});

test('When a search or an add is answered, both apps hold the same documents', async () => {
  const count = async (a: typeof fast) =>
    JSON.parse((await client(a.app, a.c).status()).text).document_count;
  expect(await count(fast)).toBe(await count(plain));
});
