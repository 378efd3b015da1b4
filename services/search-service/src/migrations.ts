import path from 'node:path';
import type { ServiceMigrations } from '@hub/service-kit';

/** The search-service's schema: its migration files and the table that records them. */
export const MIGRATIONS: ServiceMigrations = {
  dir: path.join(__dirname, '..', 'migrations'),
  table: 'search_migrations',
};
