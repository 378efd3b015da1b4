import { REINDEX_USAGE } from '../src/cli/reindex/args';
import { formatProgress } from '../src/cli/reindex/progress';
import { runReindexCli } from '../src/cli/reindex/run';
import type { TestDatabase } from './helpers/harness';
import { storedCollection, useMeilisearch } from './helpers/meili';
import type { MeiliStub } from './meili-stub';
import { silentLogger } from './outbox-fixtures';

let db: TestDatabase;
let stub: MeiliStub;
let cid: string;

useMeilisearch((m) => ({ db, stub } = m), { engine: false });
beforeAll(async () => ({ cid } = await storedCollection(db.pool)));
beforeEach(async () => {
  stub.down = false;
  stub.reset();
  await db.pool.query('DELETE FROM search_outbox');
});

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runReindexCli(
    argv,
    { DATABASE_URL: db.url, MEILI_URL: stub.url },
    { out: (t) => out.push(t), err: (t) => err.push(t) },
    { logger: silentLogger, retryDelayMs: 10, attemptTimeoutMs: 300, progressIntervalMs: 0 },
  );
  return { code, out, err };
}

async function outboxRows(): Promise<number> {
  const r = await db.pool.query<{ n: string }>('SELECT count(*)::text AS n FROM search_outbox');
  return Number(r.rows[0]!.n);
}

describe('arguments', () => {
  test.each([[['--help']], [['-h']], [['--', '--help']]])(
    'When reindex is run with %j, it prints its usage and exits 0 without touching anything',
    async (argv) => {
      const r = await cli(...argv);
      expect(r).toEqual({ code: 0, out: [REINDEX_USAGE], err: [] });
      expect(stub.requests).toEqual([]);
      expect(await outboxRows()).toBe(0);
    },
  );

  test('When the usage is printed, it documents the root script and every option', () => {
    expect(REINDEX_USAGE.split('\n').slice(0, 2)).toEqual([
      'usage: pnpm reindex -- [--collection ID] [--no-wait] [--retries N]',
      '       (node services/search-service/dist/cli/reindex.js [options] in a container)',
    ]);
    for (const option of ['--collection ID', '--no-wait', '--retries N', '-h, --help'])
      expect(REINDEX_USAGE).toContain(`\n  ${option} `);
  });

  test.each([
    [['--collection'], 'reindex: --collection needs a value'],
    [['--collection', '--no-wait'], 'reindex: --collection needs a value'],
    [
      ['--collection='],
      'reindex: --collection needs an 8-character collection id (letters and digits)',
    ],
    [
      ['--collection', 'abc'],
      'reindex: --collection needs an 8-character collection id (letters and digits)',
    ],
    [['--retries'], 'reindex: --retries needs a value'],
    [['--retries', 'many'], 'reindex: --retries needs a whole number from 0 to 100'],
    [['--colour', 'blue'], "reindex: unknown option '--colour'"],
    [['abcd1234'], "reindex: unexpected argument 'abcd1234'"],
  ])(
    'When the arguments are %j, reindex refuses them with exit status 2 and reindexes nothing',
    async (argv, message) => {
      const r = await cli(...argv);
      expect(r.code).toBe(2);
      expect(r.out).toEqual([]);
      expect(r.err).toEqual([message, 'run reindex --help for the usage']);
      expect(stub.requests).toEqual([]);
      expect(await outboxRows()).toBe(0);
    },
  );
});

test('When MEILI_API_KEY or the database password is a placeholder of an example file, reindex refuses to start with exit status 2', async () => {
  const err: string[] = [];
  const code = await runReindexCli(
    [],
    {
      DATABASE_URL: 'postgresql://search_app:change-me@127.0.0.1:5432/search',
      MEILI_URL: stub.url,
      MEILI_API_KEY: 'change-me-dedicated-meilisearch-key',
    },
    { out: () => undefined, err: (t) => err.push(t) },
    { logger: silentLogger },
  );
  expect(code).toBe(2);
  expect(err.join('\n')).toContain(
    "DATABASE_URL has a placeholder password from an example file: set the database user's real password",
  );
  expect(err.join('\n')).toContain('MEILI_API_KEY is a placeholder from an example file');
  expect(err.join('\n')).not.toContain('change-me');
  expect(stub.requests).toEqual([]);
});

describe('progress', () => {
  test.each([
    ['queued', 1500, 6000, 3000, 'reindex: queued 1500/6000 (25 %), 500/s, ETA 9 s'],
    ['queued', 100, 10000, 1000, 'reindex: queued 100/10000 (1 %), 100/s, ETA 1 min 39 s'],
    ['queued', 1, 10000, 1000, 'reindex: queued 1/10000 (0 %), 1.0/s, ETA 2 h 46 min'],
    ['sent', 3, 40, 2000, 'reindex: sent 3/40 (7 %), 1.5/s, ETA 25 s'],
    ['sent', 0, 100, 1000, 'reindex: sent 0/100 (0 %), 0.0/s, ETA unknown'],
    ['sent', 100, 100, 2000, 'reindex: sent 100/100 (100 %), 50/s, ETA 0 s'],
    ['sent', 0, 0, 0, 'reindex: sent 0/0 (100 %), 0.0/s, ETA 0 s'],
  ] as const)(
    'When %s is %d of %d after %d ms, the progress line gives the counts, the rate and the ETA',
    (verb, done, total, elapsedMs, line) => {
      expect(formatProgress(verb, done, total, elapsedMs)).toBe(line);
    },
  );

  test('When a collection is reindexed, progress is reported as done/total with a rate and an ETA, then the totals', async () => {
    const r = await cli('--collection', cid);
    expect(r.code).toBe(0);
    expect(r.out).toEqual([
      JSON.stringify({ collections: 1, queued: 3, deletes: 0, unreadable: 0, waited: true }),
    ]);
    expect(r.err.at(0)).toMatch(/^reindex: queued 3\/3 \(100 %\), \d+(\.\d)?\/s, ETA 0 s$/);
    expect(r.err.at(-1)).toMatch(/^reindex: sent 3\/3 \(100 %\), \d+(\.\d)?\/s, ETA 0 s$/);
    expect(r.err.filter((l) => !/^reindex: (queued|sent) \d+\/3 /.test(l))).toEqual([]);
    expect(stub.documents().size).toBe(3);
  });
});

describe('Meilisearch stays down', () => {
  test('When Meilisearch cannot be reached at all, reindex gives up after its retries with exit status 3 and queues nothing', async () => {
    stub.down = true;
    const r = await cli('--collection', cid, '--retries', '2');
    expect(r.code).toBe(3);
    expect(r.out).toEqual([]);
    expect(r.err.slice(0, 2).map((l) => l.replace(/ \(.*\);/, ' (…);'))).toEqual([
      'reindex: applying the index settings failed (…); attempt 2 of 3 in 10 ms',
      'reindex: applying the index settings failed (…); attempt 3 of 3 in 20 ms',
    ]);
    expect(r.err.at(-1)).toMatch(
      /^reindex: Meilisearch did not answer after 3 attempts \(.+\); nothing was queued$/,
    );
    expect(r.err).toHaveLength(3);
    expect(await outboxRows()).toBe(0);
  });

  test('When Meilisearch stops taking documents after the queueing, reindex gives up after its retries with exit status 3 and leaves the rows queued', async () => {
    stub.failRequests(
      1_000_000,
      503,
      (req) => req.method === 'POST' && /^\/indexes\/[^/]+\/documents$/.test(req.path),
    );
    const r = await cli('--collection', cid, '--retries', '1');
    expect(r.code).toBe(3);
    expect(r.out).toEqual([]);
    expect(r.err.at(-1)).toBe(
      'reindex: Meilisearch did not take the queued changes after 2 attempts; 3 changes stay ' +
        "queued in the outbox (the service's relay sends them once Meilisearch is back, or run " +
        'reindex again)',
    );
    expect(r.err.filter((l) => l.startsWith('reindex: sending the queued changes failed'))).toEqual(
      [
        'reindex: sending the queued changes failed (search outbox not drained in time); attempt 2 of 2 in 10 ms',
      ],
    );
    expect(
      Number(
        (
          await db.pool.query<{ n: string }>(
            'SELECT count(*)::text AS n FROM search_outbox WHERE done_at IS NULL',
          )
        ).rows[0]!.n,
      ),
    ).toBe(3);
  });
});
