import { runService } from '@hub/service-kit';
import { composeService } from './compose';
import { loadConfig } from './config';
import { MIGRATIONS } from './migrations';

/** Process entry (see runService): the engine, thumbnails and app, started before listening. */
void runService({
  name: 'search-service',
  loadConfig,
  migrations: MIGRATIONS,
  poolSize: (config) => config.databasePoolSize,
  start({ config, pool, logger, metrics }) {
    const service = composeService({ config, pool, logger, metrics });
    service.start();
    return { handler: service.app, close: () => service.stop() };
  },
});
