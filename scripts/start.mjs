#!/usr/bin/env node
// Developer launcher (`pnpm start`): both services on one machine with nothing installed.
//  - DATABASE_URL unset → an embedded PostgreSQL (data kept in .data/postgres between runs)
//    with one database per service; set → both services use that server.
//  - feed-service on FEED_PORT (8080), search-service on SEARCH_PORT (8081), both listening on
//    127.0.0.1 only (the printed dev credentials work for anyone who can reach them); set HOST
//    (e.g. HOST=0.0.0.0) to listen elsewhere.
//  - FEED_JWT_SECRET and SEARCH_ADMIN_TOKEN pass through, or dev values are generated once
//    and kept in .data/dev-credentials.json; a feed token and a search collection are
//    prepared and printed.
//  - Ctrl-C / SIGTERM stops the services and the database. A run killed with -9 leaves
//    processes behind; the next run finds them through .data/launcher.json and stops them.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startEmbeddedPostgres } from './embedded-postgres.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = path.join(root, '.data');
const stateFile = path.join(dataDir, 'launcher.json');
const credsFile = path.join(dataDir, 'dev-credentials.json');
const say = (msg) => process.stdout.write(`[launcher] ${msg}\n`);

fs.mkdirSync(dataDir, { recursive: true });
fs.chmodSync(dataDir, 0o755);

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
function cmdline(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}
async function stopPid(pid, marker) {
  if (!pid || !alive(pid) || (marker && !cmdline(pid).includes(marker))) return;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 150 && alive(pid); i++) await sleep(100);
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}

/** A run that was killed with -9 leaves its services (and database) running: stop them. */
async function cleanUpPreviousRun() {
  if (!fs.existsSync(stateFile)) return;
  let state = {};
  try {
    state = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
  } catch {
    /* unreadable state: nothing to clean */
  }
  if (
    state.launcher &&
    state.launcher !== process.pid &&
    alive(state.launcher) &&
    cmdline(state.launcher).includes('start.mjs')
  ) {
    say(`stopping an earlier launcher (pid ${state.launcher})`);
    await stopPid(state.launcher, 'start.mjs');
  }
  for (const pid of state.services ?? []) await stopPid(pid, 'dist/main.js');
  fs.rmSync(stateFile, { force: true });
}

function loadCredentials() {
  let saved = {};
  try {
    saved = JSON.parse(fs.readFileSync(credsFile, 'utf8'));
  } catch {
    /* first run */
  }
  const creds = {
    feedJwtSecret:
      process.env.FEED_JWT_SECRET ?? saved.feedJwtSecret ?? crypto.randomBytes(32).toString('hex'),
    searchAdminToken:
      process.env.SEARCH_ADMIN_TOKEN ??
      saved.searchAdminToken ??
      crypto.randomBytes(24).toString('hex'),
    collection: saved.collection,
  };
  return creds;
}
function saveCredentials(creds) {
  fs.writeFileSync(credsFile, JSON.stringify(creds, null, 2), { mode: 0o600 });
}

/** The address the services listen on, and the one to reach them at from this machine. */
function bindAddress(env = process.env) {
  const host = (env.HOST?.trim() || '127.0.0.1').replace(/^\[(.*)\]$/, '$1');
  const wildcard = host === '0.0.0.0' || host === '::';
  const local = wildcard ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return { host, local };
}

async function waitReady(url, child, name) {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await sleep(100);
  }
  throw new Error(`${name} did not become ready at ${url}/readyz`);
}

function startService(name, script, env) {
  const child = spawn(process.execPath, [script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      say(`${name} stopped unexpectedly (${signal ?? `code ${code}`}); shutting down`);
      shutdown(1);
    }
  });
  return child;
}

async function prepareSearchCollection(searchUrl, creds) {
  const auth = { Authorization: `Bearer ${creds.searchAdminToken}` };
  if (creds.collection) {
    const res = await fetch(`${searchUrl}/admin/collections/${creds.collection.collection_id}`, {
      headers: auth,
    });
    if (res.ok) return creds.collection;
  }
  const res = await fetch(`${searchUrl}/admin/collections`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ max_documents: 100000 }),
  });
  if (res.status !== 201)
    throw new Error(`POST /admin/collections answered ${res.status}: ${await res.text()}`);
  return res.json();
}

async function mintFeedToken(env) {
  const script = path.join(root, 'services/feed-service/dist/cli/token.js');
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [script, '--sub', 'dev', '--scope', 'hub:read hub:write', '--ttl', '30d'],
      {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) =>
      code === 0 ? resolve(out.trim()) : reject(new Error(err.trim() || `token CLI exit ${code}`)),
    );
  });
}

let stopping = false;
let pgServer;
const children = [];
async function shutdown(code = 0) {
  if (stopping) return;
  stopping = true;
  say('stopping services...');
  await Promise.all(
    children.map(
      (c) =>
        new Promise((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.once('exit', resolve);
          c.kill('SIGTERM');
          setTimeout(() => c.kill('SIGKILL'), 12_000).unref();
        }),
    ),
  );
  if (pgServer) {
    say('stopping embedded PostgreSQL...');
    await pgServer.stop().catch(() => {});
  }
  fs.rmSync(stateFile, { force: true });
  say('stopped');
  process.exit(code);
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));

async function main() {
  await cleanUpPreviousRun();
  const feedPort = Number(process.env.FEED_PORT ?? 8080);
  const searchPort = Number(process.env.SEARCH_PORT ?? 8081);
  let feedDb = process.env.FEED_DATABASE_URL ?? process.env.DATABASE_URL;
  let searchDb = process.env.SEARCH_DATABASE_URL ?? process.env.DATABASE_URL;
  fs.writeFileSync(stateFile, JSON.stringify({ launcher: process.pid, services: [] }));
  if (!feedDb || !searchDb) {
    say('DATABASE_URL not set: starting an embedded PostgreSQL (data in .data/postgres)');
    pgServer = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'postgres'), log: say });
    await pgServer.ensureDatabase('feed');
    await pgServer.ensureDatabase('search');
    feedDb ??= pgServer.url('feed');
    searchDb ??= pgServer.url('search');
  }
  const creds = loadCredentials();
  saveCredentials(creds);
  const { host, local } = bindAddress();
  const feedUrl = `http://${local}:${feedPort}`;
  const searchUrl = `http://${local}:${searchPort}`;
  const feedEnv = {
    HOST: host,
    PORT: String(feedPort),
    DATABASE_URL: feedDb,
    FEED_JWT_SECRET: creds.feedJwtSecret,
    FEED_BASE_URL: process.env.FEED_BASE_URL ?? feedUrl,
  };
  const searchEnv = {
    HOST: host,
    PORT: String(searchPort),
    DATABASE_URL: searchDb,
    SEARCH_ADMIN_TOKEN: creds.searchAdminToken,
    SEARCH_BASE_URL: process.env.SEARCH_BASE_URL ?? searchUrl,
    SEARCH_URL: process.env.SEARCH_URL ?? searchUrl,
    THUMBNAIL_URL: process.env.THUMBNAIL_URL ?? `${searchUrl}/thumbnails`,
  };
  const feed = startService(
    'feed-service',
    path.join(root, 'services/feed-service/dist/main.js'),
    feedEnv,
  );
  const search = startService(
    'search-service',
    path.join(root, 'services/search-service/dist/main.js'),
    searchEnv,
  );
  children.push(feed, search);
  fs.writeFileSync(
    stateFile,
    JSON.stringify({ launcher: process.pid, services: [feed.pid, search.pid] }),
  );
  await Promise.all([
    waitReady(feedUrl, feed, 'feed-service'),
    waitReady(searchUrl, search, 'search-service'),
  ]);

  let feedToken = '(token CLI unavailable)';
  try {
    feedToken = await mintFeedToken(feedEnv);
  } catch (e) {
    say(`could not mint a feed token: ${e.message}`);
  }
  try {
    creds.collection = await prepareSearchCollection(searchUrl, creds);
    saveCredentials(creds);
  } catch (e) {
    say(`could not prepare a search collection: ${e.message}`);
  }
  const c = creds.collection ?? { collection_id: '(none)', apikey: '(none)' };
  process.stdout.write(`
  feed-service    ${feedUrl}      (API docs: ${feedUrl}/docs)
  search-service  ${searchUrl}      (API docs: ${searchUrl}/docs)
  listening on ${host}${host === '127.0.0.1' ? ' only (set HOST=0.0.0.0 to listen on every interface)' : ''}

  Dev credentials (kept in .data/dev-credentials.json):
    feed token (hub:read hub:write, 30 days):
      ${feedToken}
    search collection id: ${c.collection_id}
    search apikey:        ${c.apikey}
    search admin token:   ${creds.searchAdminToken}

  Try:
    curl -H 'Accept: application/vnd.vendor.resource-1.0+json;charset=utf-8' \\
         -H 'Authorization: Bearer ${feedToken}' ${feedUrl}/hub/contents
    curl '${searchUrl}/v2/${c.collection_id}/status/json?apikey=${c.apikey}'

  Ctrl-C stops everything.
`);
}

main().catch((err) => {
  say(`failed: ${err instanceof Error ? err.message : String(err)}`);
  shutdown(1);
});
