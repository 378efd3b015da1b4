// Step 3's last figure and step 4: readers that each bring a new token, over HTTP (a row of
// load.mjs) and in this process (Authenticator.verify on one core).
import { dist, log, NEW_TOKENS_IN_PROCESS, require } from './settings.mjs';
import { newReaderToken, SECRET } from './tokens.mjs';

export function reportNewTokens(overHttp) {
  log(`\nnew tokens (many readers, each with its own token)`);
  log(
    `  over HTTP: ${Math.round(overHttp.rps)} req/s, each verifying a new token (server CPU ${overHttp.cpuPerReq.toFixed(1)} µs/req)`,
  );
  verifyRate();
}

/** Authenticator.verify on tokens it has never seen, in this process (one core). */
function verifyRate() {
  const { createAuthenticator } = require(dist('http/auth.js'));
  const { loadConfig } = require(dist('config.js'));
  const config = loadConfig({
    DATABASE_URL: 'postgres://unused/unused',
    FEED_JWT_SECRET: SECRET,
  });
  const auth = createAuthenticator(config.jwt);
  const tokens = Array.from({ length: NEW_TOKENS_IN_PROCESS }, newReaderToken);
  for (const t of tokens.slice(0, 1000)) auth.verify(t); // warm-up (then remembered)
  const todo = tokens.slice(1000);
  const t0 = process.hrtime.bigint();
  for (const t of todo) auth.verify(t);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  // what it would cost with the secret given as a string (jsonwebtoken builds a key per call)
  const jwt = require('jsonwebtoken');
  const few = Array.from({ length: 300 }, newReaderToken);
  const t1 = process.hrtime.bigint();
  for (const t of few) jwt.verify(t, SECRET, { algorithms: ['HS256'] });
  const perString = Number(process.hrtime.bigint() - t1) / 1e3 / few.length;
  log(
    `  in process: ${Math.round(todo.length / seconds)} verifications/s (${((seconds / todo.length) * 1e6).toFixed(1)} µs each, HS256, key built once; ${todo.length} tokens; with the secret as a string it would be ${perString.toFixed(0)} µs each)`,
  );
}
