import { runMigrateCommand } from '@hub/service-kit';
import { MIGRATIONS } from './migrations';

/** `pnpm migrate`: applies pending migrations to DATABASE_URL and exits. */
runMigrateCommand('feed-service', MIGRATIONS);
