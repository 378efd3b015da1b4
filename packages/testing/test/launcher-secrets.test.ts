/**
 * The developer launcher's secrets (scripts/lib/credentials.mjs, scripts/lib/state.mjs,
 * scripts/embedded-postgres.mjs), run for real in child processes (the scripts are ES modules)
 * on folders of their own, never the repository's .data/: the credentials file's mode at every
 * start, the embedded PostgreSQL's random password, and the upgrade of a cluster made with the
 * former password `postgres`.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { root } from './deploy-files';

const script = (rel: string) => JSON.stringify(pathToFileURL(path.join(root, 'scripts', rel)).href);

/** What the child scripts share: the launcher's modules and a connection attempt. */
const prelude = `
import pg from 'pg';
import * as state from ${script('lib/state.mjs')};
import * as credentials from ${script('lib/credentials.mjs')};
import * as embedded from ${script('embedded-postgres.mjs')};
const dir = process.env.LAUNCHER_TEST_DIR;
const log = (m) => process.stderr.write(m + '\\n');
/** 'ok', or the SQLSTATE PostgreSQL answered with (28P01: wrong password) */
async function connect(port, password) {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  try {
    await client.connect();
    await client.end();
    return 'ok';
  } catch (err) {
    return err.code ?? String(err);
  }
}
`;

/** Runs an ES module (prelude + code) with LAUNCHER_TEST_DIR=dir; resolves with what it printed. */
async function run(dir: string, code: string): Promise<{ stdout: string; stderr: string }> {
  // the launcher passes these through from its environment: the tests see generated ones
  const { FEED_JWT_SECRET: _feed, SEARCH_ADMIN_TOKEN: _search, ...env } = process.env;
  env.LAUNCHER_TEST_DIR = dir;
  return promisify(execFile)(process.execPath, ['--input-type=module', '-e', prelude + code], {
    cwd: root,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
}

const credentialsOf = (dir: string) =>
  JSON.parse(fs.readFileSync(path.join(dir, 'dev-credentials.json'), 'utf8')) as Record<
    string,
    unknown
  >;
const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

const dirs: string[] = [];
function newDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'launcher-secrets-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

test('When the launcher starts, dev-credentials.json is mode 0600 even when it was 0644 before, and .data is closed to others', async () => {
  const dir = newDataDir();
  const file = path.join(dir, 'dev-credentials.json');
  const saved = { feedJwtSecret: 'f'.repeat(64), searchAdminToken: 'a'.repeat(48) };
  fs.writeFileSync(file, JSON.stringify(saved));
  fs.chmodSync(file, 0o644);
  fs.chmodSync(dir, 0o755);
  await run(dir, 'state.makeDataDir(dir); credentials.loadCredentials(dir);');
  expect(modeOf(file)).toBe(0o600);
  // as root 0711: the embedded PostgreSQL's user must reach .data/postgres, but cannot list
  expect(modeOf(dir)).toBe(process.getuid?.() === 0 ? 0o711 : 0o700);
  expect(credentialsOf(dir)).toMatchObject(saved);
});

test('When a temporary embedded PostgreSQL starts (test harness, benches), its password is random and `postgres` is refused', async () => {
  const { stdout } = await run(
    newDataDir(),
    `const server = await embedded.startTemporaryPostgres('launcher-secrets-tmp-');
     const password = decodeURIComponent(new URL(server.url('postgres')).password);
     console.log(JSON.stringify({ password, former: await connect(server.port, 'postgres'), own: await connect(server.port, password) }));
     await server.remove();`,
  );
  const seen = JSON.parse(stdout) as { password: string; former: string; own: string };
  expect(seen.password).toMatch(/^[0-9a-f]{48}$/);
  expect(seen).toMatchObject({ former: '28P01', own: 'ok' });
}, 120_000);

test('When the launcher makes its embedded PostgreSQL, the superuser password is random, kept in dev-credentials.json and used', async () => {
  const dir = newDataDir();
  const { stdout } = await run(
    dir,
    `state.makeDataDir(dir);
     const creds = credentials.loadCredentials(dir);
     const server = await credentials.startDevPostgres(creds, { dir, log });
     console.log(JSON.stringify({ url: server.url('feed'), former: await connect(server.port, 'postgres'), own: await connect(server.port, creds.postgresPassword) }));
     await server.stop();`,
  );
  const seen = JSON.parse(stdout) as { url: string; former: string; own: string };
  const password = credentialsOf(dir).postgresPassword as string;
  expect(password).toMatch(/^[0-9a-f]{48}$/);
  expect(decodeURIComponent(new URL(seen.url).password)).toBe(password);
  expect(seen).toMatchObject({ former: '28P01', own: 'ok' });
  expect(modeOf(path.join(dir, 'dev-credentials.json'))).toBe(0o600);
}, 120_000);

test('When .data/postgres was made with the password `postgres` and the credentials have none, the launcher changes it to a stored random one and keeps the data; a second start uses it', async () => {
  const dir = newDataDir();
  fs.chmodSync(dir, 0o755);
  // the cluster and credentials as the launcher left them before passwords were random
  await run(
    dir,
    `const server = await embedded.startEmbeddedPostgres({ dataDir: dir + '/postgres', password: 'postgres', log });
     const client = new pg.Client({ connectionString: server.url('postgres') });
     await client.connect();
     await client.query('CREATE TABLE kept (n int)');
     await client.end();
     await server.stop();`,
  );
  fs.writeFileSync(
    path.join(dir, 'dev-credentials.json'),
    JSON.stringify({ feedJwtSecret: 'f'.repeat(64), searchAdminToken: 'a'.repeat(48) }),
  );
  const start = `state.makeDataDir(dir);
     const creds = credentials.loadCredentials(dir);
     const server = await credentials.startDevPostgres(creds, { dir, log });
     const client = new pg.Client({ connectionString: server.url('postgres') });
     await client.connect();
     const { rowCount } = await client.query("SELECT 1 FROM pg_tables WHERE tablename = 'kept'");
     await client.end();
     console.log(JSON.stringify({ kept: rowCount, former: await connect(server.port, 'postgres'), own: await connect(server.port, creds.postgresPassword) }));
     await server.stop();`;
  const first = await run(dir, start);
  const password = credentialsOf(dir).postgresPassword as string;
  expect(password).toMatch(/^[0-9a-f]{48}$/);
  expect(JSON.parse(first.stdout)).toEqual({ kept: 1, former: '28P01', own: 'ok' });
  expect(first.stderr).toMatch(/had a former well-known password: now the stored random one/);

  const second = await run(dir, start);
  expect(JSON.parse(second.stdout)).toEqual({ kept: 1, former: '28P01', own: 'ok' });
  expect(second.stderr).not.toMatch(/former well-known password/);
  expect(credentialsOf(dir).postgresPassword).toBe(password);
}, 120_000);
