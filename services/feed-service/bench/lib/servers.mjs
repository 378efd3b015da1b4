// The two servers under load, each in its own child process: the service (built dist/, fast
// path on unless BENCH_FAST_PATH=0) and the baseline, a bare node:http server that sends the
// same bytes and headers from memory.
import http from 'node:http';
import { dist, require } from './settings.mjs';

export async function serveApp() {
  const { createApp } = require(dist('app.js'));
  const { loadConfig } = require(dist('config.js'));
  const { createPool } = require('@hub/service-kit');
  const config = loadConfig({
    DATABASE_URL: process.env.BENCH_DB,
    FEED_JWT_SECRET: process.env.BENCH_SECRET,
    FEED_BASE_URL: 'https://feed.example.com',
  });
  const pool = createPool(config.databaseUrl);
  const app = createApp({ config, pool, fastPath: process.env.BENCH_FAST_PATH !== '0' });
  await app.ready;
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  answerCpuQueries();
}

export function serveBare() {
  // the baseline: the same bytes and headers from memory, writeHead + end
  process.on('message', (m) => {
    if (!m || !m.bodies) return;
    const { bodies } = m;
    const json = Buffer.from(bodies.json.body, 'base64');
    const xml = Buffer.from(bodies.xml.body, 'base64');
    const server = http.createServer((req, res) => {
      const isXml = req.url.endsWith('xml');
      res.writeHead(200, isXml ? bodies.xml.headers : bodies.json.headers);
      res.end(isXml ? xml : json);
    });
    server.keepAliveTimeout = 65_000;
    server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  });
  answerCpuQueries();
}

/** The parent asks for this process's CPU time around each load, to get server CPU per request. */
function answerCpuQueries() {
  process.on('message', (m) => {
    if (m === 'cpu') process.send({ cpu: process.cpuUsage() });
  });
  process.on('disconnect', () => process.exit(0));
}
