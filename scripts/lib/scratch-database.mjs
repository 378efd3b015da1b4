// A database made for one run on a server the caller names (the benches, when DATABASE_URL
// is set): created now, dropped afterwards.
import pg from 'pg';

/** Creates database `name` on adminUrl's server; returns its url and drop() (WITH (FORCE)). */
export async function createScratchDatabase(adminUrl, name) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}
