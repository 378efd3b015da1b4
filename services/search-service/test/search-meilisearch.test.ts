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
 * Meilisearch server can be installed on these machines): every test of it is reported as
 * skipped, under a describe block whose name gives the reason, and the reason is printed once.
 */

export const SKIP_REASON = 'skipped: MEILI_URL not set — Meilisearch contract suite not run';

const url = process.env.MEILI_URL;

function contractSuite(meiliUrl: string): void {
  const indexUid = `contract_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const engines: Array<{ engine: MeilisearchIndex; pool: { ending: boolean; ended: boolean } }> =
    [];
  describeSearchContract(
    'meilisearch',
    (pool) => {
      const engine = createMeilisearchIndex({
        pool,
        url: meiliUrl,
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
}

if (url) {
  // as it always ran: the contract's describe block at the top level, its names unchanged
  contractSuite(url);
} else {
  console.warn(SKIP_REASON);
  // jest reports each of the suite's tests as skipped (none runs, no hook runs)
  describe.skip(`Meilisearch contract suite (${SKIP_REASON})`, () => contractSuite(''));
}
