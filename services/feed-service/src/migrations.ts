import path from 'node:path';
import type { ServiceMigrations } from '@hub/service-kit';

/** The feed-service's schema: its migration files and the table that records them. */
export const MIGRATIONS: ServiceMigrations = {
  dir: path.join(__dirname, '..', 'migrations'),
  table: 'feed_migrations',
};
