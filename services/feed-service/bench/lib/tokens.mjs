// Readers' tokens: HS256 JWTs signed here (no library), each one distinct, with a secret
// made for this run (the parent's; children get it as BENCH_SECRET).
import crypto from 'node:crypto';

export const SECRET = crypto.randomBytes(32).toString('hex');

function hs256(payload) {
  const part = (v) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(payload)}`;
  return `${body}.${crypto.createHmac('sha256', SECRET).update(body).digest('base64url')}`;
}

let tokenSerial = 0;
export function newReaderToken() {
  const now = Math.floor(Date.now() / 1000);
  return hs256({ scope: 'hub:read', sub: `reader-${++tokenSerial}`, iat: now, exp: now + 3600 });
}
