import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../src/logger';
import { serve } from '../src/serve';

function get(port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(
        { port, host: '127.0.0.1', path: '/', agent: new http.Agent({ keepAlive: true }) },
        (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      )
      .on('error', reject);
  });
}

test('When SIGTERM arrives during load, every in-flight request completes before the process exits', async () => {
  let closed = false;
  let results: Promise<{ status: number; body: string }[]> = Promise.resolve([]);
  let port = 0;
  let arrived = 0;
  const exited = new Promise<number>((resolve) => {
    void serve({
      handler: (_req, res) => {
        // SIGTERM once all 20 are in flight (on a loaded machine they take a while to arrive)
        if (++arrived === 20) setTimeout(() => process.emit('SIGTERM'), 100);
        setTimeout(() => res.end('done'), 300);
      },
      port: 0,
      host: '127.0.0.1',
      logger: createLogger('test', 'silent'),
      close: async () => {
        closed = true;
      },
      exit: resolve,
    }).then((server) => {
      port = (server.address() as AddressInfo).port;
      results = Promise.all(Array.from({ length: 20 }, () => get(port)));
    });
  });
  expect(await exited).toBe(0);
  const answered = await results;
  expect(answered).toHaveLength(20);
  expect(answered.every((r) => r.status === 200 && r.body === 'done')).toBe(true);
  expect(closed).toBe(true);
  await expect(get(port)).rejects.toThrow(/ECONNREFUSED/);
});
