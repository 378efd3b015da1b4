import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { operationsRouter, requestContext } from '../src/http';
import { createLogger } from '../src/logger';
import { serve } from '../src/serve';
import { captureLogs } from './capture-logs';

/** A logger (at debug unless given) whose JSON lines are kept in `lines`. */
const capture = (level = 'debug') => captureLogs('test', level);

const failingDatabase = () => Promise.reject(new Error('connection refused'));

function app(database: () => Promise<unknown>, logger = createLogger('test', 'silent')) {
  const a = express();
  a.use(requestContext(logger));
  a.use(operationsRouter({ database }));
  a.get('/slow', (_req, res) => setTimeout(() => res.send('done'), 300));
  a.get('/hello', (_req, res) => res.send('hi'));
  return a;
}

test('When the database is down, GET /healthz still answers 200 without calling it (liveness)', async () => {
  let calls = 0;
  const res = await request(
    app(() => {
      calls++;
      return failingDatabase();
    }),
  ).get('/healthz');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ status: 'ok', checks: {} });
  expect(calls).toBe(0);
});

test('When the database is down, GET /readyz answers 503 and names the failing check', async () => {
  const res = await request(app(failingDatabase)).get('/readyz');
  expect(res.status).toBe(503);
  expect(res.body).toEqual({ status: 'not ready', checks: { database: 'connection refused' } });
});

test('When draining() is true, GET /readyz answers 503 without running the checks; /healthz stays 200', async () => {
  let calls = 0;
  const a = express();
  a.use(
    operationsRouter({
      database: async () => {
        calls++;
      },
      draining: () => true,
    }),
  );
  const ready = await request(a).get('/readyz');
  expect(ready.status).toBe(503);
  expect(ready.body.checks).toEqual({ draining: 'shutting down' });
  expect((await request(a).get('/healthz')).status).toBe(200);
  expect(calls).toBe(0);
});

/** Raw HTTP/1.1 on one keep-alive connection: the answers, in order, as they arrive. */
function rawConnection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let data = '';
  socket.on('data', (d) => (data += d.toString()));
  return {
    send: (path: string) =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n`),
    statuses: () => [...data.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1])),
    close: () => socket.destroy(),
  };
}

test('When SIGTERM starts the drain, GET /readyz on a connection still open answers 503', async () => {
  let exitCode = -1;
  const server = await serve({
    handler: app(async () => undefined),
    port: 0,
    host: '127.0.0.1',
    logger: createLogger('test', 'silent'),
    exit: (code) => (exitCode = code),
  });
  const { port } = server.address() as AddressInfo;
  const conn = rawConnection(port);
  conn.send('/readyz');
  await new Promise((r) => setTimeout(r, 100));
  expect(conn.statuses()).toEqual([200]);
  conn.send('/slow'); // keeps the connection busy, so the drain does not close it
  await new Promise((r) => setTimeout(r, 50));
  process.emit('SIGTERM');
  conn.send('/readyz');
  for (let i = 0; i < 50 && conn.statuses().length < 3; i++)
    await new Promise((r) => setTimeout(r, 20));
  conn.close();
  expect(conn.statuses()).toEqual([200, 200, 503]);
  for (let i = 0; i < 50 && exitCode < 0; i++) await new Promise((r) => setTimeout(r, 20));
  expect(exitCode).toBe(0);
});

test('When probes and the metrics scrape are requested, their log lines are at debug; other requests at info', async () => {
  const { logger, lines } = capture();
  const a = app(async () => undefined, logger);
  await request(a).get('/healthz');
  await request(a).get('/readyz');
  await request(a).get('/hello');
  const byPath = Object.fromEntries(
    lines.filter((l) => l.msg === 'request').map((l) => [l.path, l.level]),
  );
  expect(byPath).toEqual({ '/healthz': 20, '/readyz': 20, '/hello': 30 });
});

test('When LOG_LEVEL is info, a probe writes no log line', async () => {
  const { logger, lines } = capture('info');
  const a = app(async () => undefined, logger);
  await request(a).get('/healthz');
  await request(a).get('/hello');
  expect(lines.map((l) => l.path)).toEqual(['/hello']);
});

test('the probes are served on a real port too (http.get)', async () => {
  const server = http.createServer(app(failingDatabase));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const status = await new Promise<number>((resolve, reject) =>
    http
      .get({ port, host: '127.0.0.1', path: '/healthz' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject),
  );
  await new Promise((r) => server.close(r));
  expect(status).toBe(200);
});
