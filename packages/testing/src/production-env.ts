/**
 * The production example env files (infra/production/<service>.env.example) as a service's
 * config reader sees them, and the problems a reader reports: the services' config tests load
 * the files as they are, so the placeholder rule and the files cannot drift apart.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError } from '@hub/service-kit';

/** The settings of infra/production/<service>.env.example (comments left out). */
export function productionEnvExample(service: string): NodeJS.ProcessEnv {
  const file = path.resolve(__dirname, `../../../infra/production/${service}.env.example`);
  return parseEnv(fs.readFileSync(file, 'utf8'));
}

/** The problems a config loader reports for env ([] when it accepts it). */
export function configProblems(load: (env: NodeJS.ProcessEnv) => unknown, env: NodeJS.ProcessEnv) {
  try {
    load(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}
