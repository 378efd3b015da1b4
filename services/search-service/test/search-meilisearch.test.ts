import { randomBytes } from 'node:crypto';
import { createLogger } from '@hub/service-kit';
import {
  createMeilisearchIndex,
  type MeilisearchIndex,
} from '../src/index/meilisearch/meilisearch-index';
import { describeSearchContract } from './contract/search-contract';

/**
 * The search contract suite (the same one the Postgres engine passes in every run) against the
 * Meilisearch engine, when a Meilisearch server is given: MEILI_URL (and MEILI_API_KEY). Each
 * run uses its own index, deleted afterwards. Without MEILI_URL the suite cannot run here (no
 * Meilisearch server can be installed on these machines): the file says so visibly.
 */

export const SKIP_REASON = 'skipped: MEILI_URL not set — Meilisearch contract suite not run';

function skipReason(): string | null {
  return process.env.MEILI_URL ? null : SKIP_REASON;
}

const url = process.env.MEILI_URL;

if (url) {
  const indexUid = `contract_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const engines: Array<{ engine: MeilisearchIndex; pool: { ending: boolean; ended: boolean } }> =
    [];
  describeSearchContract(
    'meilisearch',
    (pool) => {
      const engine = createMeilisearchIndex({
        pool,
        url,
        apiKey: process.env.MEILI_API_KEY || undefined,
        indexUid,
        logger: createLogger('search-contract', 'silent'),
      });
      engines.push({ engine, pool });
      return engine;
    },
    // every committed change sent and its Meilisearch task done (engines whose database is gone
    // have nothing left to send)
    async () => {
      for (const { engine, pool } of engines)
        if (!pool.ending && !pool.ended) await engine.settle(60_000);
    },
  );
  afterAll(async () => {
    for (const { engine } of engines) await engine.stop();
    await engines[0]?.engine.gateway.deleteIndex();
  });
} else {
  console.warn(SKIP_REASON);
  test('Meilisearch contract suite: not run without MEILI_URL', () => {
    expect(skipReason()).toBe('skipped: MEILI_URL not set — Meilisearch contract suite not run');
  });
}
