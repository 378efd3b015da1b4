/**
 * Secrets at start-up: the placeholders of infra/production/feed-service.env.example are refused
 * (the file is read as it is, so the rule and the file cannot drift apart); real values pass.
 */
import { randomBytes } from 'node:crypto';
import { configProblems, productionEnvExample } from '@hub/testing';
import { loadConfig } from '../src/config';

const example = () => productionEnvExample('feed-service');

test('When feed-service starts with infra/production/feed-service.env.example as it is, it refuses, naming DATABASE_URL and FEED_JWT_SECRET', () => {
  expect(configProblems(loadConfig, example())).toEqual([
    "DATABASE_URL has a placeholder password from an example file: set the database user's real password",
    'FEED_JWT_SECRET is a placeholder from an example file: set a secret of your own (e.g. openssl rand -hex 32)',
  ]);
});

test('When the example file gets a real database password and a random FEED_JWT_SECRET, feed-service accepts it', () => {
  const env = example();
  const password = randomBytes(24).toString('hex');
  env.DATABASE_URL = env.DATABASE_URL!.replace(':change-me@', `:${password}@`);
  env.FEED_JWT_SECRET = randomBytes(32).toString('hex');
  const config = loadConfig(env);
  expect(config.databaseUrl).toBe(
    `postgresql://feed_app:${password}@db.internal.example:5432/feed?sslmode=require`,
  );
  expect(config.jwt.algorithms).toEqual(['HS256']);
});
