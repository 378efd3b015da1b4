import { runService } from '@hub/service-kit';
import { createApp } from './app';
import { loadConfig } from './config';
import { MIGRATIONS } from './migrations';

/** Process entry (see runService): the feed app on a pool of 10 connections. */
void runService({
  name: 'feed-service',
  loadConfig,
  migrations: MIGRATIONS,
  poolSize: () => 10,
  start({ config, pool, logger, metrics }) {
    const app = createApp({ config, pool, logger, metrics });
    return { handler: app, close: () => app.close() };
  },
});
