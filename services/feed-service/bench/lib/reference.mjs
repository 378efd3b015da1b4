// Step 3's reference cases, one run each: 304s, the Express route alone (fast path off), and
// readers that each bring a new token.
import { FORMATS } from './baseline.mjs';
import { newReaderToken } from './tokens.mjs';
import { ACCEPT, log } from './settings.mjs';
import { median } from './stats.mjs';

/**
 * servers: { app, appUrl, express, expressUrl }, the service with and without its fast path
 * (children of processes.mjs); headers: { json, xml } of a reader's request headers; bodies:
 * the captured bodies (their ETags); appCpus: the cached 200's CPU per request of each round
 * (rounds.mjs). Returns the row of the new-token load.
 */
export async function referenceCases(load, servers, { headers, bodies, appCpus }) {
  const { app, appUrl, express, expressUrl } = servers;
  log(`\nreference cases (one run each)`);
  const notModified = {};
  for (const format of FORMATS) {
    notModified[format] = await load(
      `service 304, ${format === 'json' ? 'JSON' : 'RSS'} (If-None-Match)`,
      app,
      appUrl,
      { ...headers[format], 'If-None-Match': bodies[format].etag },
      304,
    );
  }
  const expressJson = await load(
    'Express route alone, cached 200, JSON',
    express,
    expressUrl,
    headers.json,
    200,
  );
  // every request brings a token the service has never seen: it verifies the signature
  // (a key built once at start), remembers the token, then answers from the cache
  const newTokens = await load(
    'new token per request, cached 200, JSON',
    app,
    appUrl,
    { Accept: ACCEPT.json },
    200,
    [
      {
        method: 'GET',
        path: '/hub/contents',
        setupRequest: (req) => ({
          ...req,
          headers: { ...req.headers, Authorization: `Bearer ${newReaderToken()}` },
        }),
      },
    ],
  );
  // one run each, so compare the server's CPU per request (steadier than req/s here)
  const cpuMedian = (format) => median(appCpus[format]);
  log(
    `  server CPU per request: 304 ${notModified.json.cpuPerReq.toFixed(1)} µs vs cached 200 ${cpuMedian('json').toFixed(1)} µs (JSON), ${notModified.xml.cpuPerReq.toFixed(1)} vs ${cpuMedian('xml').toFixed(1)} µs (RSS); Express alone ${expressJson.cpuPerReq.toFixed(1)} µs vs the fast path's ${cpuMedian('json').toFixed(1)} µs (JSON)`,
  );
  return newTokens;
}
