// Jest global setup for every package: a real PostgreSQL for the whole run.
// DATABASE_URL set → use that server (CI, developers with Postgres); otherwise start one
// embedded server for this run, in a temporary folder that teardown removes, with a random
// superuser password (in TEST_ADMIN_DATABASE_URL only; nothing else needs it).
const os = require('node:os');
const path = require('node:path');
const fs = require('node:fs');

module.exports = async function globalSetup() {
  if (process.env.DATABASE_URL) {
    process.env.TEST_ADMIN_DATABASE_URL = process.env.DATABASE_URL;
    return;
  }
  const { startEmbeddedPostgres } = await import(
    path.join(__dirname, '../../scripts/embedded-postgres.mjs')
  );
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-test-pg-'));
  fs.chmodSync(dataDir, 0o755);
  const server = await startEmbeddedPostgres({
    dataDir: path.join(dataDir, 'data'),
    persistent: false,
  });
  globalThis.__EMBEDDED_PG__ = { server, dataDir };
  process.env.TEST_ADMIN_DATABASE_URL = server.url('postgres');
  process.stderr.write(
    `\n[test harness] DATABASE_URL not set: using an embedded PostgreSQL on port ${server.port}\n`,
  );
};
