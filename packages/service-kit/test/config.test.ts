import { ConfigError, ConfigReader } from '../src/config';

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
  expect(() => r.done('svc')).not.toThrow();
});

test('When a URL uses another protocol than allowed, the reader says which ones are allowed', () => {
  const r = new ConfigReader({ DATABASE_URL: 'mysql://x' });
  r.url('DATABASE_URL', { protocols: ['postgres', 'postgresql'] });
  expect(r.problems).toEqual(['DATABASE_URL must use postgres or postgresql (got "mysql://x")']);
});
