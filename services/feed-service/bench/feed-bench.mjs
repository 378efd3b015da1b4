#!/usr/bin/env node
// `pnpm bench:feed` (root: build, then this). One run:
//  1. a database: DATABASE_URL's server (a scratch database, dropped at the end) or an
//     embedded PostgreSQL in a temporary folder;
//  2. 100 items with realistic Korean text;
//  3. the service (built dist/, fast path on) and a bare node:http server answering the
//     same bytes, each in a child process; autocannon (programmatic) at 64 connections:
//     cached 200 JSON and RSS against the bare server in FEED_BENCH_ROUNDS interleaved
//     rounds (median ratio and spread), then once each: 304s, the Express route alone
//     (fast path off), and readers that each bring a new token (every request verifies one);
//  4. the in-process rate of verifying new tokens (Authenticator.verify);
//  5. 1,000,000 items (one INSERT … generate_series), then the uncached render (query +
//     render, no cache) timed 50 times per feed and format.
// Settings: FEED_BENCH_DURATION (s per server, format and round, 3), FEED_BENCH_WARMUP (s, 0.25),
// FEED_BENCH_CONNECTIONS (64), FEED_BENCH_ROUNDS (9), FEED_BENCH_SLICES (6: each round's
// time per server and format, cut into slices that alternate A-B-B-A-A-B…), FEED_BENCH_ROWS (1000000; 0 skips
// step 5), FEED_BENCH_RENDERS (50), FEED_BENCH_NODE_ARGS (e.g. --cpu-prof for the servers),
// FEED_BENCH_ONLY=cached (stop after the cached 200 comparison).
// This file runs the steps; it runs again as each child process (its first argument names
// the role). The parts are in lib/ (see the service's README).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { captureBodies, checkSameBytes } from './lib/baseline.mjs';
import { openDatabase } from './lib/database.mjs';
import { insertBulk, insertRealisticItems } from './lib/items.mjs';
import { createLoader } from './lib/load.mjs';
import { reportNewTokens } from './lib/new-tokens.mjs';
import { child, runToEnd, stopChildren } from './lib/processes.mjs';
import { referenceCases } from './lib/reference.mjs';
import { renderTimings } from './lib/render-timings.mjs';
import { cachedVsBare } from './lib/rounds.mjs';
import { serveApp, serveBare } from './lib/servers.mjs';
import { ACCEPT, dist, log, require, ROWS, serviceDir } from './lib/settings.mjs';
import { newReaderToken, SECRET } from './lib/tokens.mjs';

async function main() {
  const started = Date.now();
  const load = createLoader();
  const { runMigrations, createPool } = require('@hub/service-kit');
  if (!fs.existsSync(dist('app.js')))
    throw new Error('dist/ is missing: run `pnpm build` first (pnpm bench:feed does)');

  const { url: dbUrl, cleanup } = await openDatabase();
  const children = [];
  try {
    await runMigrations({
      databaseUrl: dbUrl,
      dir: path.join(serviceDir, 'migrations'),
      table: 'feed_migrations',
    });
    const pool = createPool(dbUrl, 4);
    await insertRealisticItems(pool, 100);
    log(
      `database ready; 100 items (${os.cpus().length} CPUs, ${os.cpus()[0]?.model ?? '?'}, Node ${process.version}, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')})`,
    );

    const env = { ...process.env, BENCH_DB: dbUrl, BENCH_SECRET: SECRET };
    const app = await child('serve-app', env, children);
    const express = await child('serve-app', { ...env, BENCH_FAST_PATH: '0' }, children);
    const token = newReaderToken();
    const appUrl = `http://127.0.0.1:${app.port}/hub/contents`;
    const expressUrl = `http://127.0.0.1:${express.port}/hub/contents`;
    const auth = { Authorization: `Bearer ${token}` };
    const headers = {
      json: { ...auth, Accept: ACCEPT.json },
      xml: { ...auth, Accept: ACCEPT.xml },
    };

    // the bytes the bare server will send: what the service sends (minus the per-request headers)
    const bodies = await captureBodies({ appUrl, expressUrl, headers });
    const bare = await child('serve-bare', env, children, { bodies });
    // the baseline must send what the service sends: same header lines, same body
    const bareUrl = (f) => `http://127.0.0.1:${bare.port}/${f}`;
    await checkSameBytes({ appUrl, bareUrl, headers });
    log(`bodies: JSON ${bodies.json.size} bytes, RSS ${bodies.xml.size} bytes`);

    // The bare server gets the same request (Authorization and Accept included, ignored):
    // the two differ only in what the service does with it.
    const { appCpus } = await cachedVsBare(load, {
      json: [
        ['bare node:http, JSON bytes', bare, bareUrl('json'), headers.json, 200],
        ['service cached 200, JSON (fast path)', app, appUrl, headers.json, 200],
      ],
      xml: [
        ['bare node:http, RSS bytes', bare, bareUrl('xml'), headers.xml, 200],
        ['service cached 200, RSS (fast path)', app, appUrl, headers.xml, 200],
      ],
    });

    if (process.env.FEED_BENCH_ONLY === 'cached') return; // e.g. to profile just that

    const servers = { app, appUrl, express, expressUrl };
    const newTokens = await referenceCases(load, servers, { headers, bodies, appCpus });
    await stopChildren(children);
    reportNewTokens(newTokens);

    log(`\nuncached render (one snapshot query + render, no cache), in a fresh process`);
    if (ROWS > 0) {
      const t0 = Date.now();
      await insertBulk(pool, ROWS);
      log(
        `  ${ROWS.toLocaleString('en')} stored items: bulk insert + ANALYZE took ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
    } else {
      log('  FEED_BENCH_ROWS=0: with the 100 items only');
    }
    await runToEnd('render-timings', env);
    await pool.end();
    log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await stopChildren(children);
    await cleanup();
  }
}

if (process.argv[2] === 'serve-app') {
  await serveApp();
} else if (process.argv[2] === 'serve-bare') {
  serveBare();
} else if (process.argv[2] === 'render-timings') {
  await renderTimings();
} else {
  await main();
}
