import { createHmac, generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import type { FeedApp } from '../src/app';
import { loadConfig } from '../src/config';
import { makeApp, useDatabase } from './helpers/harness';
import { ACCEPT_JSON, ACCEPT_XML, getFeed } from './helpers/requests';
import { READ_TOKEN, SECRET, token } from './helpers/tokens';

const db = useDatabase();

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
const now = () => Math.floor(Date.now() / 1000);
/** An HS256 token of any payload (jwt.sign refuses claims of the wrong type). */
function hs256(payload: unknown, secret = SECRET): string {
  const data = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(payload)}`;
  return `${data}.${createHmac('sha256', secret).update(data).digest('base64url')}`;
}
/** GET /hub/contents as JSON with this token. */
const readAll = (app: FeedApp, bearer: string) =>
  getFeed(app, '/hub/contents', ACCEPT_JSON, bearer);

function expect401(res: request.Response, reason?: RegExp) {
  expect(res.status).toBe(401);
  expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="hub"/);
  expect(res.headers['content-type']).toBe('application/json;charset=utf-8');
  expect(res.body.error.status).toBe(401);
  expect(res.body.error.message).toMatch(/^authentication failed/);
  if (reason) expect(res.body.error.message).toMatch(reason);
}

describe('401 on the read paths', () => {
  test('When no token is sent, GET /hub/contents answers 401 with a Bearer challenge', async () => {
    const app = await makeApp(db);
    const res = await request(app).get('/hub/contents').set('Accept', ACCEPT_JSON);
    expect401(res);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="hub"');
    expect(res.body).toEqual({ error: { status: 401, message: 'authentication failed' } });
  });

  test('When the token is malformed, GET /hub/contents answers 401', async () => {
    const app = await makeApp(db);
    expect401(await readAll(app, 'not-a-jwt'), /malformed token/);
    expect401(await readAll(app, 'a.b.c'), /malformed token/);
    expect401(
      await request(app)
        .get('/hub/contents')
        .set('Accept', ACCEPT_JSON)
        .set('Authorization', `Basic ${READ_TOKEN}`),
      /Bearer/,
    );
    expect401(
      await request(app)
        .get('/hub/contents')
        .set('Accept', ACCEPT_JSON)
        .set('Authorization', 'Bearer'),
    );
  });

  test('When the token has expired, GET /hub/contents answers 401', async () => {
    const app = await makeApp(db);
    const res = await readAll(app, token({ payload: { exp: now() - 10 }, noExp: true }));
    expect401(res, /token expired/);
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  test('When the token is not valid before a future nbf, GET /hub/contents answers 401', async () => {
    const app = await makeApp(db);
    expect401(await readAll(app, token({ notBefore: 3600 })), /not yet valid/);
  });

  test('When the token is signed with another secret, GET /hub/contents answers 401', async () => {
    const app = await makeApp(db);
    expect401(
      await readAll(app, token({ secret: 'another-secret-another-secret-another' })),
      /invalid signature/,
    );
  });

  test('When the token says alg none (unsigned), GET /hub/contents answers 401', async () => {
    const app = await makeApp(db);
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'x', scope: 'hub:read hub:write', exp: now() + 3600 })}.`;
    expect401(await readAll(app, unsigned));
  });

  test('When the token uses an algorithm that is not pinned (HS512), GET /hub/contents answers 401', async () => {
    const app = await makeApp(db);
    const hs512 = jwt.sign({ scope: 'hub:read' }, SECRET, { algorithm: 'HS512', expiresIn: 60 });
    expect401(await readAll(app, hs512), /algorithm not allowed/);
  });

  test('When the token has no exp, GET /hub/contents answers 401', async () => {
    const app = await makeApp(db);
    expect401(await readAll(app, token({ noExp: true })), /no exp/);
  });

  test('When an issuer and audience are configured, tokens with a wrong or missing iss/aud get 401 and matching ones 200', async () => {
    const app = await makeApp(db, {
      FEED_JWT_ISSUER: 'https://issuer.example.com',
      FEED_JWT_AUDIENCE: 'hub-feed',
    });
    expect401(
      await readAll(app, token({ issuer: 'https://evil.example.com', audience: 'hub-feed' })),
      /wrong issuer/,
    );
    expect401(
      await readAll(app, token({ issuer: 'https://issuer.example.com', audience: 'other' })),
      /wrong audience/,
    );
    expect401(await readAll(app, token()));
    expect(
      (await readAll(app, token({ issuer: 'https://issuer.example.com', audience: 'hub-feed' })))
        .status,
    ).toBe(200);
  });

  test('Each refusal names its reason in the challenge, the signature checked before any claim', async () => {
    const app = await makeApp(db, { FEED_JWT_AUDIENCE: 'hub-feed' });
    const reason = async (bearer: string) => {
      const challenge = (await readAll(app, bearer)).headers['www-authenticate'] as string;
      return /error_description="([^"]*)"/.exec(challenge)?.[1];
    };
    const header = b64({ alg: 'HS256', typ: 'JWT' });
    const claims = { scope: 'hub:read', aud: 'hub-feed', exp: now() + 60 };
    const other = 'another-secret-another-secret-another';
    expect(await reason('a.b')).toBe('malformed token');
    expect(await reason(`${header}.bm90IGpzb24.c2ln`)).toBe('malformed token'); // payload not JSON
    expect(await reason(`${header}.${b64(claims)}.`)).toBe('unsigned token');
    expect(await reason(`${b64({ typ: 'JWT' })}.${b64(claims)}.c2ln`)).toBe(
      'algorithm not allowed',
    );
    expect(await reason(hs256({ ...claims, exp: 'soon' }, other))).toBe('invalid signature');
    expect(await reason(hs256({ ...claims, exp: 'soon' }))).toBe('invalid token');
    expect(await reason(hs256({ ...claims, nbf: 'now' }))).toBe('invalid token');
    expect(await reason(hs256({ ...claims, exp: now() - 1, aud: 'x' }))).toBe('token expired');
    expect(await reason(token({ audience: 'hub-feed', notBefore: 60 }))).toBe(
      'token not yet valid',
    );
    expect(await reason(token({ payload: { aud: ['x', 'hub-feed'] } }))).toBeUndefined();
    expect(await reason(token())).toBe('wrong audience');
  });

  test('When the error is for an XML client, the 401 body is the XML error document', async () => {
    const app = await makeApp(db);
    const res = await request(app).get('/hub/contents').set('Accept', ACCEPT_XML);
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toBe('application/xml;charset=utf-8');
    expect(res.text).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><error><status>401</status><message>authentication failed</message></error>',
    );
  });
});

describe('where the token may be', () => {
  test('When the token comes in an "Authentication" header (the spec prose spelling), GET /hub/contents answers 200', async () => {
    const app = await makeApp(db);
    const res = await request(app)
      .get('/hub/contents')
      .set('Accept', ACCEPT_JSON)
      .set('Authentication', `Bearer ${READ_TOKEN}`);
    expect(res.status).toBe(200);
  });

  test('When the token comes as the access_token query parameter on GET, the feed is served', async () => {
    const app = await makeApp(db);
    const res = await request(app)
      .get(`/hub/contents?access_token=${READ_TOKEN}`)
      .set('Accept', ACCEPT_XML);
    expect(res.status).toBe(200);
    expect(res.text).not.toContain(READ_TOKEN); // the self link never carries it
    const cat = await request(app)
      .get(`/hub/categories/it/contents?foo=1&access_token=${READ_TOKEN}`)
      .set('Accept', ACCEPT_JSON);
    expect(cat.status).toBe(200);
  });

  test('When a token is sent in two places at once, GET /hub/contents answers 401 (RFC 6750 allows one)', async () => {
    const app = await makeApp(db);
    const res = await request(app)
      .get(`/hub/contents?access_token=${READ_TOKEN}`)
      .set('Accept', ACCEPT_JSON)
      .set('Authorization', `Bearer ${READ_TOKEN}`);
    expect401(res, /more than one/);
    expect(res.headers['www-authenticate']).toContain('error="invalid_request"');
    const both = await request(app)
      .get('/hub/contents')
      .set('Accept', ACCEPT_JSON)
      .set('Authorization', `Bearer ${READ_TOKEN}`)
      .set('Authentication', `Bearer ${READ_TOKEN}`);
    expect401(both, /more than one/);
  });

  test('When a verified token is used again, it is not verified again until it expires', async () => {
    let clock = Date.now();
    const app = await makeApp(db, {}, { clock: () => clock });
    const t = token({ expiresIn: 60 });
    const verify = jest.spyOn(jwt, 'verify');
    try {
      expect((await readAll(app, t)).status).toBe(200);
      expect((await readAll(app, t)).status).toBe(200);
      expect(verify).toHaveBeenCalledTimes(1);
      clock += 61_000; // past exp: the remembered verification no longer counts
      expect401(await readAll(app, t), /token expired/);
    } finally {
      verify.mockRestore();
    }
  });
});

describe('asymmetric keys', () => {
  test('When FEED_JWT_PUBLIC_KEY holds an RSA key, RS256 tokens signed by its private key are accepted and others refused', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const app = await makeApp(db, {
      FEED_JWT_SECRET: '',
      FEED_JWT_PUBLIC_KEY: pem.replace(/\n/g, '\\n'),
    });
    const good = jwt.sign({ scope: 'hub:read' }, privateKey, { algorithm: 'RS256', expiresIn: 60 });
    expect((await readAll(app, good)).status).toBe(200);
    // HS256 signed with the public key as the secret: the classic algorithm confusion
    const confused = jwt.sign({ scope: 'hub:read', exp: now() + 60 }, pem, { algorithm: 'HS256' });
    expect401(await readAll(app, confused));
  });

  test('When FEED_JWT_PUBLIC_KEY holds an EC P-256 key, ES256 tokens are accepted', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const app = await makeApp(db, {
      FEED_JWT_SECRET: '',
      FEED_JWT_PUBLIC_KEY: pem,
      FEED_JWT_ALGORITHMS: 'ES256',
    });
    const good = jwt.sign({ scope: 'hub:read' }, privateKey, { algorithm: 'ES256', expiresIn: 60 });
    expect((await readAll(app, good)).status).toBe(200);
  });

  test('When the JWT settings are inconsistent, loadConfig names each problem', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const base = { DATABASE_URL: 'postgres://localhost/x' };
    expect(() => loadConfig({ ...base, FEED_JWT_SECRET: 'short' })).toThrow(
      /FEED_JWT_SECRET must be at least 32 characters/,
    );
    expect(() =>
      loadConfig({ ...base, FEED_JWT_SECRET: SECRET, FEED_JWT_PUBLIC_KEY: pem }),
    ).toThrow(/set only one/);
    expect(() =>
      loadConfig({ ...base, FEED_JWT_SECRET: SECRET, FEED_JWT_ALGORITHMS: 'none' }),
    ).toThrow(/unknown algorithm "none"/);
    expect(() =>
      loadConfig({ ...base, FEED_JWT_SECRET: SECRET, FEED_JWT_ALGORITHMS: 'RS256' }),
    ).toThrow(/RS256 cannot be verified with the configured secret/);
    expect(() =>
      loadConfig({ ...base, FEED_JWT_PUBLIC_KEY: pem, FEED_JWT_ALGORITHMS: 'RS256' }),
    ).toThrow(/RS256 cannot be verified/);
    expect(() => loadConfig({ ...base, FEED_JWT_PUBLIC_KEY: 'not a pem' })).toThrow(
      /must be a PEM public key/,
    );
    expect(loadConfig({ ...base, FEED_JWT_PUBLIC_KEY: pem }).jwt.algorithms).toEqual(['ES256']);
    expect(loadConfig({ ...base, FEED_JWT_SECRET: SECRET }).jwt.algorithms).toEqual(['HS256']);
  });
});
