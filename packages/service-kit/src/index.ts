export * from './config';
export * from './logger';
export * from './errors';
export * from './db';
export * from './metrics';
export * from './http';
export * from './serve';
export * from './docs-router';
