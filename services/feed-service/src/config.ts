import { ConfigReader } from '@hub/service-kit';

export interface FeedConfig {
  port: number;
  databaseUrl: string;
  logLevel: string;
}

/** Environment → typed config; every bad or missing setting is reported at once. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): FeedConfig {
  const r = new ConfigReader(env);
  const config: FeedConfig = {
    port: r.int('PORT', { default: 8080, min: 0, max: 65535 }),
    databaseUrl: r.url('DATABASE_URL', { protocols: ['postgres', 'postgresql'] }),
    logLevel: r.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  };
  r.done('feed-service');
  return config;
}
