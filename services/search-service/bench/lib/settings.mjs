// The bench's settings (environment variables, see search-bench.mjs), paths and output.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const root = path.resolve(benchDir, '..', '..', '..');
export const serviceDir = path.join(benchDir, '..');
export const dist = path.join(serviceDir, 'dist');
/** the entry point: the load generator's worker thread runs it too */
export const entryFile = path.join(benchDir, 'search-bench.mjs');

export const DOCS = Number(process.env.BENCH_DOCS ?? 100_000);
export const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
// per measurement; 1,000 per query kind, so that each kind's p99 is not one outlier
export const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 17_000);
export const EXTRA_ADDS = Number(process.env.BENCH_EXTRA_ADDS ?? Math.min(10_000, DOCS / 5));

export const say = (msg) => process.stdout.write(`${msg}\n`);
