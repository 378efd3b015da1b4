#!/usr/bin/env node
// Developer launcher (`pnpm start`): both services on one machine with nothing installed.
//  - DATABASE_URL unset → an embedded PostgreSQL (data kept in .data/postgres between runs)
//    with one database per service and a random superuser password (kept in
//    .data/dev-credentials.json); set → both services use that server.
//  - feed-service on FEED_PORT (8080), search-service on SEARCH_PORT (8081), both listening on
//    127.0.0.1 only (the printed dev credentials work for anyone who can reach them); set HOST
//    (e.g. HOST=0.0.0.0) to listen elsewhere.
//  - FEED_JWT_SECRET and SEARCH_ADMIN_TOKEN pass through, or dev values are generated once
//    and kept in .data/dev-credentials.json (mode 0600 in .data/ of 0700, set at every start);
//    a feed token and a search collection are prepared and printed.
//  - Ctrl-C / SIGTERM stops the services and the database. A run killed with -9 leaves
//    processes behind; the next run finds them through .data/launcher.json and stops them.
// Its parts are in lib/: state (.data/, the previous run), credentials, services, banner.
import path from 'node:path';
import { printBanner } from './lib/banner.mjs';
import {
  loadCredentials,
  mintFeedToken,
  prepareSearchCollection,
  saveCredentials,
  startDevPostgres,
} from './lib/credentials.mjs';
import {
  bindAddress,
  serviceEnvs,
  startService,
  stopServices,
  waitReady,
} from './lib/services.mjs';
import {
  cleanUpPreviousRun,
  makeDataDir,
  removeState,
  root,
  say,
  writeState,
} from './lib/state.mjs';

makeDataDir();

let stopping = false;
let pgServer;
const children = [];
async function shutdown(code = 0) {
  if (stopping) return;
  stopping = true;
  say('stopping services...');
  await stopServices(children);
  if (pgServer) {
    say('stopping embedded PostgreSQL...');
    await pgServer.stop().catch(() => {});
  }
  removeState();
  say('stopped');
  process.exit(code);
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));

/** A service that ends while we are not stopping takes everything down. */
function launch(name, env) {
  const script = path.join(root, `services/${name}/dist/main.js`);
  return startService(script, env, (code, signal) => {
    if (!stopping) {
      say(`${name} stopped unexpectedly (${signal ?? `code ${code}`}); shutting down`);
      shutdown(1);
    }
  });
}

async function main() {
  await cleanUpPreviousRun();
  const feedPort = Number(process.env.FEED_PORT ?? 8080);
  const searchPort = Number(process.env.SEARCH_PORT ?? 8081);
  let feedDb = process.env.FEED_DATABASE_URL ?? process.env.DATABASE_URL;
  let searchDb = process.env.SEARCH_DATABASE_URL ?? process.env.DATABASE_URL;
  writeState([]);
  const creds = loadCredentials();
  if (!feedDb || !searchDb) {
    say('DATABASE_URL not set: starting an embedded PostgreSQL (data in .data/postgres)');
    pgServer = await startDevPostgres(creds, { log: say });
    await pgServer.ensureDatabase('feed');
    await pgServer.ensureDatabase('search');
    feedDb ??= pgServer.url('feed');
    searchDb ??= pgServer.url('search');
  }
  const { host, local } = bindAddress();
  const feedUrl = `http://${local}:${feedPort}`;
  const searchUrl = `http://${local}:${searchPort}`;
  const env = serviceEnvs({
    host,
    feed: { port: feedPort, db: feedDb, url: feedUrl },
    search: { port: searchPort, db: searchDb, url: searchUrl },
    creds,
  });
  const feed = launch('feed-service', env.feed);
  const search = launch('search-service', env.search);
  children.push(feed, search);
  writeState([feed.pid, search.pid]);
  await Promise.all([
    waitReady(feedUrl, feed, 'feed-service'),
    waitReady(searchUrl, search, 'search-service'),
  ]);

  let feedToken = '(token CLI unavailable)';
  try {
    feedToken = await mintFeedToken(env.feed);
  } catch (e) {
    say(`could not mint a feed token: ${e.message}`);
  }
  try {
    creds.collection = await prepareSearchCollection(searchUrl, creds);
    saveCredentials(creds);
  } catch (e) {
    say(`could not prepare a search collection: ${e.message}`);
  }
  printBanner({
    feedUrl,
    searchUrl,
    host,
    feedToken,
    creds,
    embeddedDb: pgServer?.url('postgres'),
  });
}

main().catch((err) => {
  say(`failed: ${err instanceof Error ? err.message : String(err)}`);
  shutdown(1);
});
