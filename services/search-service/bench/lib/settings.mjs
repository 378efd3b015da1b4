// The bench's settings (options and environment variables, see search-bench.mjs), paths and
// output. An option (`--docs 5000`) wins over its variable (BENCH_DOCS); the service's process
// writes the values it read back into the environment, which the load generator's process
// inherits.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const root = path.resolve(benchDir, '..', '..', '..');
export const serviceDir = path.join(benchDir, '..');
export const dist = path.join(serviceDir, 'dist');
/** the entry point: the load generator's child process runs it too */
export const entryFile = path.join(benchDir, 'search-bench.mjs');

const OPTIONS = {
  '--docs': 'BENCH_DOCS',
  '--searches': 'BENCH_SEARCHES',
  '--concurrency': 'BENCH_CONCURRENCY',
  '--extra-adds': 'BENCH_EXTRA_ADDS',
  '--mix': 'BENCH_MIX_QUERIES',
  '--write-rate': 'BENCH_WRITE_RATE',
  '--isolation': 'BENCH_ISOLATION',
};
/** `--docs 5000` or `--docs=5000` (a `--` that pnpm passes on is ignored) into the environment */
export function readOptions(argv) {
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].split('=', 2);
    if (argv[i] === '--') continue;
    const variable = OPTIONS[name];
    const value = inline ?? argv[++i];
    if (!variable || !/^\d+$/.test(value ?? ''))
      throw new Error(
        `unknown option or value: ${argv[i]} (options: ${Object.keys(OPTIONS).join(', ')}, each with a whole number)`,
      );
    process.env[variable] = value;
  }
}
readOptions(process.argv.slice(2));

const setting = (variable, fallback) => Number(process.env[variable] ?? fallback);
export const DOCS = setting('BENCH_DOCS', 100_000);
export const CONCURRENCY = setting('BENCH_CONCURRENCY', 16);
// per measurement: BENCH_SEARCHES, else 1,000 per query kind (searchesPerMeasurement), so that
// each kind's p99 is not one outlier (the default was 17,000 for the 17 kinds of its day, and
// stayed so when options and the spacing kind made 26: 654 a kind, each p99 its 7th largest)
const SEARCHES = process.env.BENCH_SEARCHES === undefined ? null : setting('BENCH_SEARCHES', 0);
export const SEARCHES_PER_KIND = 1_000;
/** searches of one measurement of these query kinds */
export const searchesPerMeasurement = (kinds) => SEARCHES ?? kinds.length * SEARCHES_PER_KIND;
export const EXTRA_ADDS = setting('BENCH_EXTRA_ADDS', Math.min(10_000, DOCS / 5));
// distinct queries of the wide mix, each sent twice (issue 23: at least 2,000)
export const MIX_QUERIES = setting('BENCH_MIX_QUERIES', 4_000);
// adds, replacements and deletes per second while the wide mix is measured
export const WRITE_RATE = setting('BENCH_WRITE_RATE', 50);
// 0: leave out the tenant-isolation phase (it loads a second collection as large as A, which
// doubles a 1,000,000-document run); its rows then print "not run"
export const ISOLATION = setting('BENCH_ISOLATION', 1) !== 0;
// documents of the bare-INSERT floor (a node:http server that only INSERTs them)
export const FLOOR_DOCS = Math.min(DOCS, 20_000);
// adds sent to the floor before it is measured, not counted: its first thousands ran at under
// half its later rate (2026-12-02: first tenth 1,128–1,234/s, last tenth 2,384–2,983/s), the
// JIT of both processes and the pool's connections warming up, which the service's adds pay
// only in the first percent of 100,000 documents, so a cold floor flattered the ratio
export const FLOOR_LEAD_DOCS = Math.min(5_000, Math.ceil(FLOOR_DOCS / 4));
// BENCH_PG_STATEMENTS=1 (embedded PostgreSQL only): the statements' time during the adds to A,
// each measurement of the query kinds and each wide mix
export const STATEMENT_STATS = Boolean(process.env.BENCH_PG_STATEMENTS);
/** the targets of issue 23 at this size: 2× the 100,000-document bound at 1,000,000 */
export const AT_MILLION = DOCS >= 1_000_000;
export const SEARCH_P99_TARGET = AT_MILLION ? 100 : 50;

export const say = (msg) => process.stdout.write(`${msg}\n`);
