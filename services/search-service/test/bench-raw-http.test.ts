import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type * as RawHttpModule from '../bench/lib/raw-http.mjs' with {
  'resolution-mode': 'import',
};

/**
 * The search bench's HTTP client (bench/lib/raw-http.mjs): it parses answers itself from one
 * reused read buffer, so the bench's figures are only as right as this parsing. Against a real
 * node:http server: bodies of any size over several reads, bodies not kept, error answers,
 * connections the server closes, answers it cannot read.
 */

let createRawHttp: typeof RawHttpModule.createRawHttp;
let server: http.Server;
let port: number;
const big = Buffer.alloc(600_000, 'a');
big.write('START', 0);
big.write('END', big.length - 3);

beforeAll(async () => {
  ({ createRawHttp } = await import('../bench/lib/raw-http.mjs'));
  server = http.createServer((req, res) => {
    const url = req.url ?? '';
    if (url === '/big') {
      res.writeHead(200, { 'Content-Length': big.length });
      res.end(big);
    } else if (url === '/429') {
      res.writeHead(429, { 'Content-Length': 17, 'Retry-After': '1' });
      res.end('too many requests');
    } else if (url === '/empty') {
      res.writeHead(200, { 'Content-Length': 0 });
      res.end();
    } else if (req.method === 'POST' || req.method === 'PUT') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        const answer = `${req.method} ${req.headers['content-type']} ${body.length} ${body.slice(-8)}`;
        res.writeHead(200, { 'Content-Length': Buffer.byteLength(answer) });
        res.end(answer);
      });
    } else if (url === '/chunked') {
      res.writeHead(200);
      res.write('x');
      res.end('y');
    } else {
      const body = Buffer.from(JSON.stringify({ numfound: Number(url.slice(1)) }));
      res.writeHead(200, { 'Content-Length': body.length, 'Content-Type': 'application/json' });
      res.end(body);
    }
  });
  server.keepAliveTimeout = 200;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const numfound = (a: RawHttpModule.RawAnswer) => JSON.parse(a.body!.toString()).numfound;

test('Many requests on few connections each get their own answer, in any order of completion', async () => {
  const get = createRawHttp({ port, connections: 4 });
  const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => get.get(`/${i}`, true)));
  expect(answers.map(numfound)).toEqual(Array.from({ length: 300 }, (_, i) => i));
  expect(answers.every((a) => a.status === 200)).toBe(true);
  get.close();
});

test('A body larger than the read buffer arrives whole, beside small ones on other connections', async () => {
  const get = createRawHttp({ port, connections: 3 });
  const [kept, dropped, small] = await Promise.all([
    get.get('/big', true),
    get.get('/big', false),
    get.get('/7', true),
  ]);
  expect(kept.body!.equals(big)).toBe(true);
  expect(dropped).toEqual({ status: 200, body: null });
  expect(numfound(small)).toBe(7);
  get.close();
});

test('A body not asked for is null on 200, but kept on any other status', async () => {
  const get = createRawHttp({ port, connections: 1 });
  expect(await get.get('/5', false)).toEqual({ status: 200, body: null });
  const refused = await get.get('/429', false);
  expect(refused.status).toBe(429);
  expect(refused.body!.toString()).toBe('too many requests');
  const empty = await get.get('/empty', true);
  expect(empty.status).toBe(200);
  expect(empty.body!.length).toBe(0);
  get.close();
});

test('When the server closes idle connections, the next requests go on new ones', async () => {
  const get = createRawHttp({ port, connections: 4 });
  await Promise.all(Array.from({ length: 8 }, (_, i) => get.get(`/${i}`, true)));
  await new Promise((r) => setTimeout(r, 500));
  const again = await Promise.all(Array.from({ length: 8 }, (_, i) => get.get(`/${i}`, true)));
  expect(again.map(numfound)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  get.close();
});

test('A form body is sent whole with its length and type, beside GETs on the same connections', async () => {
  const get = createRawHttp({ port, connections: 2 });
  const form = `doc=${encodeURIComponent('한국어 '.repeat(3000))}&end=1`;
  const [posted, put, plain] = await Promise.all([
    get.request('POST', '/docs', form, true),
    get.request('PUT', '/docs', 'a=b', true),
    get.get('/9', true),
  ]);
  expect(posted.body!.toString()).toBe(
    `POST application/x-www-form-urlencoded ${form.length} ${form.slice(-8)}`,
  );
  expect(put.body!.toString()).toBe('PUT application/x-www-form-urlencoded 3 a=b');
  expect(numfound(plain)).toBe(9);
  get.close();
});

test('An answer without Content-Length rejects, and the client goes on', async () => {
  const get = createRawHttp({ port, connections: 1 });
  await expect(get.get('/chunked', true)).rejects.toThrow('an answer without Content-Length');
  expect(numfound(await get.get('/3', true))).toBe(3);
  get.close();
});
