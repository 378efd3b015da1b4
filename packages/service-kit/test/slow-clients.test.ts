import type http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { ConfigReader } from '../src/config';
import { createLogger } from '../src/logger';
import { DEFAULT_HTTP_TIMEOUTS, readHttpTimeouts, serve, type HttpTimeouts } from '../src/serve';

/**
 * A client that sends its request a byte at a time, or nothing, or never reads, does not hold
 * a connection past the server's bounds (HttpTimeouts, set small here).
 */

const TIMEOUTS: HttpTimeouts = {
  headersMs: 1000,
  requestMs: 1500,
  keepAliveMs: 500,
  socketIdleMs: 3000,
};

const servers: http.Server[] = [];
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A server (through serve) whose handler reads the body and answers its length. */
async function listening(
  handler?: http.RequestListener,
  timeouts: HttpTimeouts = TIMEOUTS,
): Promise<number> {
  const server = await serve({
    handler:
      handler ??
      ((req, res) => {
        let n = 0;
        req.on('data', (d: Buffer) => (n += d.length));
        req.on('end', () => res.end(`read ${n}`));
      }),
    port: 0,
    host: '127.0.0.1',
    logger: createLogger('test', 'silent'),
    exit: () => undefined,
    timeouts,
  });
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

/**
 * Opens a connection, writes `head` at once and then `trickled` one byte every 200 ms; resolves
 * when the server closes the connection: what it answered and how many trickled bytes it got.
 */
function trickle(
  port: number,
  head: string,
  trickled: string,
): Promise<{ answer: string; sent: number; ms: number }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const t0 = Date.now();
    let answer = '';
    let sent = 0;
    socket.on('data', (d) => (answer += d.toString()));
    socket.on('error', () => undefined);
    if (head) socket.write(head);
    const timer = setInterval(() => {
      if (sent < trickled.length) socket.write(trickled[sent++]!);
    }, 200);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, sent, ms: Date.now() - t0 });
    });
  });
}

const TIMED_OUT = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';

test('When a client sends its headers one byte every 200 ms, the server answers 408 and closes the connection once HTTP_HEADERS_TIMEOUT_MS has passed', async () => {
  const port = await listening();
  const request = 'GET / HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n\r\n'; // 8 s at 5 bytes a second
  const r = await trickle(port, '', request);
  expect(r.answer).toBe(TIMED_OUT);
  expect(r.sent).toBeLessThan(request.length);
  expect(r.ms).toBeLessThan(TIMEOUTS.headersMs + 1000);
});

test('When a client sends its body one byte every 200 ms, the server answers 408 and closes the connection once HTTP_REQUEST_TIMEOUT_MS has passed', async () => {
  const port = await listening();
  const body = 'x'.repeat(40); // 8 s at 5 bytes a second
  const r = await trickle(
    port,
    `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`,
    body,
  );
  expect(r.answer).toBe(TIMED_OUT);
  expect(r.sent).toBeLessThan(body.length);
  expect(r.ms).toBeLessThan(TIMEOUTS.requestMs + 1000);
});

test('When a client connects and sends nothing, the server answers 408 and closes the connection once HTTP_HEADERS_TIMEOUT_MS has passed', async () => {
  const port = await listening();
  const r = await trickle(port, '', '');
  expect(r.answer).toBe(TIMED_OUT);
  expect(r.ms).toBeLessThan(TIMEOUTS.headersMs + 1000);
});

test('When a kept-alive connection stays idle for HTTP_KEEP_ALIVE_TIMEOUT_MS after its answer, the server closes it (Node adds 1 s)', async () => {
  const port = await listening();
  const r = await trickle(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', '');
  expect(r.answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nread 0$/);
  expect(r.ms).toBeLessThan(TIMEOUTS.keepAliveMs + 2000);
});

test('When nothing is sent or read on a connection for HTTP_SOCKET_IDLE_TIMEOUT_MS, the server closes it', async () => {
  const idle = { ...TIMEOUTS, socketIdleMs: 1000 };
  const port = await listening(() => undefined, idle); // a request that is never answered
  const r = await trickle(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', '');
  expect(r.answer).toBe('');
  expect(r.ms).toBeLessThan(idle.socketIdleMs + 1000);
});

test('When the HTTP_* timeouts are not set, the defaults are 10 s for the headers, 30 s for the request, 65 s idle between requests and 120 s without traffic', () => {
  expect(readHttpTimeouts(new ConfigReader({}))).toEqual(DEFAULT_HTTP_TIMEOUTS);
  expect(DEFAULT_HTTP_TIMEOUTS).toEqual({
    headersMs: 10_000,
    requestMs: 30_000,
    keepAliveMs: 65_000,
    socketIdleMs: 120_000,
  });
  const r = new ConfigReader({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '2000' });
  readHttpTimeouts(r);
  expect(r.problems).toEqual(['HTTP_HEADERS_TIMEOUT_MS must not be above HTTP_REQUEST_TIMEOUT_MS']);
});
