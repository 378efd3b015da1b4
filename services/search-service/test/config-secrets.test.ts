/**
 * Secrets at start-up: the placeholders of infra/production/search-service.env.example are
 * refused (the file is read as it is, so the rule and the file cannot drift apart); real values
 * pass.
 */
import { randomBytes } from 'node:crypto';
import { configProblems, productionEnvExample } from '@hub/testing';
import { loadConfig } from '../src/config';

const example = () => productionEnvExample('search-service');

test('When search-service starts with infra/production/search-service.env.example as it is, it refuses, naming DATABASE_URL, SEARCH_ADMIN_TOKEN and MEILI_API_KEY', () => {
  expect(configProblems(loadConfig, example())).toEqual([
    "DATABASE_URL has a placeholder password from an example file: set the database user's real password",
    'SEARCH_ADMIN_TOKEN is a placeholder from an example file: set a secret of your own (e.g. openssl rand -hex 32)',
    'MEILI_API_KEY is a placeholder from an example file: set a secret of your own (e.g. openssl rand -hex 32)',
  ]);
});

test('When the example file gets a real database password, admin token and Meilisearch key, search-service accepts it', () => {
  const env = example();
  const password = randomBytes(24).toString('hex');
  env.DATABASE_URL = env.DATABASE_URL!.replace(':change-me@', `:${password}@`);
  env.SEARCH_ADMIN_TOKEN = randomBytes(24).toString('hex');
  env.MEILI_API_KEY = randomBytes(32).toString('hex');
  const config = loadConfig(env);
  expect(config.databaseUrl).toBe(
    `postgresql://search_app:${password}@db.internal.example:5432/search?sslmode=require`,
  );
  expect(config.adminToken).toBe(env.SEARCH_ADMIN_TOKEN);
  expect(config.meiliApiKey).toBe(env.MEILI_API_KEY);
});
