// The dev credentials: the feed's JWT secret and the search admin token (from the
// environment, or generated once), the embedded PostgreSQL's superuser password (generated
// once), all kept in .data/dev-credentials.json (mode 0600, set at every start); a feed token
// minted with the feed's token CLI, and a search collection created through the admin API.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  FORMER_DEV_PASSWORD,
  randomPassword,
  startEmbeddedPostgres,
} from '../embedded-postgres.mjs';
import { dataDir, root } from './state.mjs';

export const credentialsFile = (dir = dataDir) => path.join(dir, 'dev-credentials.json');

/**
 * The credentials in dir (.data/), at every start: the file is set to mode 0600 before it is
 * read (whatever it was), missing secrets are generated, and the result is saved at once.
 */
export function loadCredentials(dir = dataDir) {
  const file = credentialsFile(dir);
  let saved = {};
  try {
    fs.chmodSync(file, 0o600);
    saved = JSON.parse(fs.readFileSync(file, 'utf8'));
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
    postgresPassword: saved.postgresPassword,
    collection: saved.collection,
  };
  saveCredentials(creds, dir);
  return creds;
}

/** Replaces the file with one of mode 0600 (written beside it, then renamed over it). */
export function saveCredentials(creds, dir = dataDir) {
  const file = credentialsFile(dir);
  const next = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(next, JSON.stringify(creds, null, 2), { mode: 0o600 });
  fs.chmodSync(next, 0o600); // a file left by an earlier run keeps its mode on write
  fs.renameSync(next, file);
}

/**
 * The launcher's embedded PostgreSQL in dir/postgres; its superuser password is
 * creds.postgresPassword, generated and saved before first use. A cluster made when the
 * password was `postgres` is given the stored one at this start.
 */
export async function startDevPostgres(creds, { dir = dataDir, log }) {
  if (!creds.postgresPassword) {
    creds.postgresPassword = randomPassword();
    saveCredentials(creds, dir);
  }
  return startEmbeddedPostgres({
    dataDir: path.join(dir, 'postgres'),
    password: creds.postgresPassword,
    formerPasswords: [FORMER_DEV_PASSWORD],
    log,
  });
}

/** The saved collection if the service still has it, else a new one. */
export async function prepareSearchCollection(searchUrl, creds) {
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

/** A 30-day hub:read hub:write token from the feed-service's token CLI. */
export async function mintFeedToken(env) {
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
