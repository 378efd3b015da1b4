import { randomBytes } from 'node:crypto';
import { ConfigError, ConfigReader, isPlaceholderSecret } from '../src/config';

test('When several settings are bad, done() reports every one of them at once', () => {
  const r = new ConfigReader({ PORT: 'x', DATABASE_URL: 'not a url', FLAG: 'maybe' });
  r.int('PORT', { default: 1 });
  r.url('DATABASE_URL');
  r.bool('FLAG', false);
  r.string('MISSING');
  expect(() => r.done('svc')).toThrow(ConfigError);
  expect(r.problems).toEqual([
    'PORT must be an integer (got "x")',
    'DATABASE_URL must be an absolute URL (got "not a url")',
    'FLAG must be true or false (got "maybe")',
    'MISSING is required',
  ]);
});

test('When settings are absent, defaults apply and blank values count as absent', () => {
  const r = new ConfigReader({ PORT: '  ' });
  expect(r.int('PORT', { default: 8080 })).toBe(8080);
  expect(r.oneOf('LEVEL', ['a', 'b'], 'a')).toBe('a');
  expect(r.url('U', { default: 'http://x/' })).toBe('http://x');
  expect([r.isSet('PORT'), r.isSet('U')]).toEqual([false, false]);
  expect(new ConfigReader({ U: 'http://x' }).isSet('U')).toBe(true);
  expect(() => r.done('svc')).not.toThrow();
});

test('When a URL uses another protocol than allowed, the reader says which ones are allowed', () => {
  const r = new ConfigReader({ DATABASE_URL: 'mysql://x' });
  r.url('DATABASE_URL', { protocols: ['postgres', 'postgresql'] });
  expect(r.problems).toEqual(['DATABASE_URL must use postgres or postgresql (got "mysql://x")']);
});

test('When a secret is a placeholder ("change-me" in any spelling, "<NAME>", "..."), the reader refuses it without echoing it', () => {
  for (const value of [
    'change-me-use-openssl-rand-hex-32-at-least-32-characters',
    'CHANGE_ME',
    'please-changeme-now',
    '<SEARCH_ADMIN_TOKEN>',
    '...',
    '…',
  ])
    expect({ value, placeholder: isPlaceholderSecret(value) }).toEqual({
      value,
      placeholder: true,
    });
  const r = new ConfigReader({ TOKEN: 'change-me-token', KEY: '<KEY>' });
  expect(r.secret('TOKEN')).toBe('change-me-token');
  expect(r.optionalSecret('KEY')).toBe('<KEY>');
  expect(r.optionalSecret('ABSENT')).toBeUndefined();
  expect(r.problems).toEqual([
    'TOKEN is a placeholder from an example file: set a secret of your own (e.g. openssl rand -hex 32)',
    'KEY is a placeholder from an example file: set a secret of your own (e.g. openssl rand -hex 32)',
  ]);
});

test('When a secret is a random value, the reader accepts it', () => {
  const value = randomBytes(24).toString('hex');
  expect(isPlaceholderSecret(value)).toBe(false);
  const r = new ConfigReader({ TOKEN: value, KEY: 'ci-meili-master-key-not-a-secret' });
  expect(r.secret('TOKEN')).toBe(value);
  expect(r.optionalSecret('KEY')).toBe('ci-meili-master-key-not-a-secret');
  expect(() => r.done('svc')).not.toThrow();
});

test('When a PostgreSQL URL carries a placeholder password (plain, URL-encoded or ?password=), the reader names the setting', () => {
  const r = new ConfigReader({
    A: 'postgresql://feed_app:change-me@db.internal.example:5432/feed?sslmode=require',
    B: 'postgres://app:Change%2DMe@db/x',
    C: 'postgres://app@db/x?password=changeme',
  });
  for (const name of ['A', 'B', 'C']) r.postgresUrl(name);
  expect(r.problems).toEqual(
    ['A', 'B', 'C'].map(
      (name) =>
        `${name} has a placeholder password from an example file: set the database user's real password`,
    ),
  );
});

test('When a PostgreSQL URL has a real password or none, the reader accepts it', () => {
  const password = randomBytes(32).toString('hex');
  const r = new ConfigReader({
    A: `postgres://app:${password}@db:5432/x`,
    B: 'postgres://postgres@127.0.0.1:5432/test',
    C: 'postgres://postgres:postgres@localhost:5432/postgres',
  });
  expect(r.postgresUrl('A')).toBe(`postgres://app:${password}@db:5432/x`);
  r.postgresUrl('B');
  r.postgresUrl('C');
  expect(r.problems).toEqual([]);
  const wrong = new ConfigReader({ A: 'mysql://x' });
  wrong.postgresUrl('A');
  expect(wrong.problems).toEqual(['A must use postgres or postgresql']);
});

test('When a PostgreSQL URL is malformed, the problem names the setting but never shows the value (it may hold a password)', () => {
  const r = new ConfigReader({
    A: 'postgres://app:s3cret-pass@[db/x',
    B: 'mysql://app:s3cret-pass@db/x',
  });
  r.postgresUrl('A');
  r.postgresUrl('B');
  expect(r.problems).toEqual(['A must be an absolute URL', 'B must use postgres or postgresql']);
});
