// The dev credentials: the feed's JWT secret and the search admin token (from the
// environment, or generated once and kept in .data/dev-credentials.json), a feed token minted
// with the feed's token CLI, and a search collection created through the admin API.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { dataDir, root } from './state.mjs';

const credsFile = path.join(dataDir, 'dev-credentials.json');

export function loadCredentials() {
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

export function saveCredentials(creds) {
  fs.writeFileSync(credsFile, JSON.stringify(creds, null, 2), { mode: 0o600 });
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
