import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { main, mintToken, parseTtl } from '../src/cli/token';
import { makeApp, useDatabase } from './helpers/harness';
import { getFeed, item, publish } from './helpers/requests';
import { SECRET } from './helpers/tokens';

const db = useDatabase();

function run(args: string[], env: NodeJS.ProcessEnv) {
  let out = '';
  let err = '';
  const code = main(
    args,
    env,
    (s) => (out += s),
    (s) => (err += s),
  );
  return { code, out, err };
}

test('When --ttl is given as seconds or with s, m, h or d, it becomes seconds; nonsense is refused', () => {
  expect(parseTtl('3600')).toBe(3600);
  expect(parseTtl('45s')).toBe(45);
  expect(parseTtl('15m')).toBe(900);
  expect(parseTtl('12h')).toBe(43_200);
  expect(parseTtl('30d')).toBe(2_592_000);
  for (const bad of ['', '0', '-5', '1w', '1.5h', '400d', 'abc'])
    expect([bad, parseTtl(bad)]).toEqual([bad, undefined]);
});

test('When the CLI mints a token, it prints only the token, with sub, scope and exp as asked', () => {
  const { code, out, err } = run(
    ['--sub', 'dev', '--scope', 'hub:read hub:write', '--ttl', '30d'],
    { FEED_JWT_SECRET: SECRET },
  );
  expect(code).toBe(0);
  expect(err).toBe('');
  expect(out).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
  const claims = jwt.verify(out.trim(), SECRET, { algorithms: ['HS256'] }) as jwt.JwtPayload;
  expect(claims).toMatchObject({ sub: 'dev', scope: 'hub:read hub:write' });
  expect(claims.exp! - claims.iat!).toBe(30 * 86_400);
});

test('When a minted write token is used, the service accepts it for reading and publishing; a default token only reads', async () => {
  const app = await makeApp(db);
  const writer = run(['--sub', 'dev', '--scope', 'hub:read hub:write'], {
    FEED_JWT_SECRET: SECRET,
  }).out.trim();
  const reader = run(['--sub', 'reader'], { FEED_JWT_SECRET: SECRET }).out.trim();
  expect((await publish(app, item(), writer)).status).toBe(201);
  expect((await publish(app, item(), reader)).status).toBe(403);
  expect(
    (await getFeed(app, '/hub/contents', undefined, reader).set('Accept', 'application/json'))
      .status,
  ).toBe(200);
});

test('When issuer and audience are configured, minted tokens carry them and pass the service', async () => {
  const env = { FEED_JWT_ISSUER: 'https://issuer.example.com', FEED_JWT_AUDIENCE: 'hub-feed' };
  const app = await makeApp(db, env);
  const t = run(['--sub', 'x'], { FEED_JWT_SECRET: SECRET, ...env }).out.trim();
  expect((await getFeed(app, '/hub/contents', 'application/json', t)).status).toBe(200);
});

test('When FEED_JWT_PRIVATE_KEY holds an EC or RSA key, the CLI signs ES256 or RS256', () => {
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const esToken = mintToken(
    { sub: 's', scope: 'hub:read', ttlSeconds: 60 },
    { FEED_JWT_PRIVATE_KEY: ec.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() },
  );
  expect(jwt.decode(esToken, { complete: true })!.header.alg).toBe('ES256');
  expect(() => jwt.verify(esToken, ec.publicKey, { algorithms: ['ES256'] })).not.toThrow();
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const rsToken = mintToken(
    { sub: 's', scope: 'hub:read', ttlSeconds: 60 },
    { FEED_JWT_PRIVATE_KEY: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() },
  );
  expect(jwt.decode(rsToken, { complete: true })!.header.alg).toBe('RS256');
});

test('When arguments or keys are missing, the CLI explains on stderr and exits non-zero', () => {
  expect(run(['--scope', 'hub:read'], { FEED_JWT_SECRET: SECRET })).toMatchObject({
    code: 2,
    out: '',
    err: expect.stringMatching(/--sub is required/),
  });
  expect(run(['--sub', 'x', '--ttl', 'forever'], { FEED_JWT_SECRET: SECRET })).toMatchObject({
    code: 2,
    out: '',
  });
  expect(run(['--sub', 'x', '--bogus'], { FEED_JWT_SECRET: SECRET })).toMatchObject({
    code: 2,
    out: '',
  });
  expect(run(['--sub', 'x'], {})).toMatchObject({
    code: 1,
    out: '',
    err: expect.stringMatching(/FEED_JWT_SECRET or FEED_JWT_PRIVATE_KEY is required/),
  });
  expect(run(['--sub', 'x'], { FEED_JWT_SECRET: 'short' })).toMatchObject({
    code: 1,
    err: expect.stringMatching(/at least 32/),
  });
});
