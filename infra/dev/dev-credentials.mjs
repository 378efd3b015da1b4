// One-shot helper of the compose stack (`docker compose run --rm dev-credentials`): the same
// dev credentials story as `pnpm start`. Runs inside the feed-service image (working directory
// /app), after both services answer /healthz:
//  - mints a feed token with the feed-service's own CLI (dist/cli/token.js, FEED_JWT_SECRET from
//    the environment): subject "dev", scope "hub:read hub:write", valid 30 days;
//  - creates a search collection through POST /admin/collections (SEARCH_ADMIN_TOKEN);
//  - prints both with the public URLs and two curl lines to try.
// Every run creates a new collection; nothing is written to disk.
import { spawnSync } from 'node:child_process';

const env = process.env;
const searchInternal = env.SEARCH_INTERNAL_URL ?? 'http://search-service:8081';
const feedPublic = env.FEED_BASE_URL ?? 'http://localhost:8080';
const searchPublic = env.SEARCH_BASE_URL ?? 'http://localhost:8081';
const fail = (msg) => {
  process.stderr.write(`[dev-credentials] ${msg}\n`);
  process.exit(1);
};

const token = spawnSync(
  process.execPath,
  ['dist/cli/token.js', '--sub', 'dev', '--scope', 'hub:read hub:write', '--ttl', '30d'],
  { encoding: 'utf8', env },
);
if (token.status !== 0) fail(`token CLI failed: ${(token.stderr || token.stdout || '').trim()}`);
const feedToken = token.stdout.trim();

if (!env.SEARCH_ADMIN_TOKEN) fail('SEARCH_ADMIN_TOKEN is not set');
const res = await fetch(`${searchInternal}/admin/collections`, {
  method: 'POST',
  headers: {
    Authorization: `Bearer ${env.SEARCH_ADMIN_TOKEN}`,
    'Content-Type': 'application/json',
  },
  body: JSON.stringify({ max_documents: 100000 }),
}).catch((e) => fail(`search-service unreachable at ${searchInternal}: ${e.message}`));
if (res.status !== 201) fail(`POST /admin/collections answered ${res.status}: ${await res.text()}`);
const collection = await res.json();

process.stdout.write(`
  feed-service    ${feedPublic}
  search-service  ${searchPublic}

  Dev credentials:
    feed token (hub:read hub:write, 30 days):
      ${feedToken}
    search collection id: ${collection.collection_id}
    search apikey:        ${collection.apikey}
    search admin token:   the SEARCH_ADMIN_TOKEN of your .env

  Try:
    curl -H 'Accept: application/vnd.vendor.resource-1.0+json;charset=utf-8' \\
         -H 'Authorization: Bearer ${feedToken}' ${feedPublic}/hub/contents
    curl '${searchPublic}/v2/${collection.collection_id}/status/json?apikey=${collection.apikey}'
`);
