// The bench's settings (environment variables, see feed-bench.mjs), paths and output.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const require = createRequire(import.meta.url);
const benchDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const serviceDir = path.resolve(benchDir, '..');
export const rootDir = path.resolve(serviceDir, '../..');
/** a file of the built service */
export const dist = (p) => path.join(serviceDir, 'dist', p);
/** the entry point: the servers and the render timings run it again, in child processes */
export const entryFile = path.join(benchDir, 'feed-bench.mjs');

export const DURATION = Number(process.env.FEED_BENCH_DURATION ?? 3);
export const WARMUP = Number(process.env.FEED_BENCH_WARMUP ?? 0.25);
export const CONNECTIONS = Number(process.env.FEED_BENCH_CONNECTIONS ?? 64);
export const ROWS = Number(process.env.FEED_BENCH_ROWS ?? 1_000_000);
export const RENDERS = Number(process.env.FEED_BENCH_RENDERS ?? 50);
export const ROUNDS = Math.max(1, Number(process.env.FEED_BENCH_ROUNDS ?? 9));
export const SLICES = Math.max(1, Number(process.env.FEED_BENCH_SLICES ?? 6));
export const NEW_TOKENS_IN_PROCESS = 20_000;
export const ACCEPT = {
  json: 'application/vnd.vendor.resource-1.0+json;charset=utf-8',
  xml: 'application/vnd.vendor.resource-1.0+xml;charset=utf-8',
};

export const log = (s) => process.stdout.write(`${s}\n`);
