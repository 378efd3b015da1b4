import type pg from 'pg';
import {
  createPostgresIndex,
  type PostgresSearchIndex,
} from '../src/index/postgres/postgres-index';
import { describeSearchContract } from './contract/search-contract';

/**
 * The Postgres engine passes the contract in each of its states: every document still in the
 * pending tail (the folder not running), everything folded into one segment per settle, and
 * everything folded in small segments that merge (many segments, merges, tombstones; folds are
 * packed segments, merges past 20 documents write one row per term).
 */
async function foldEverything(index: PostgresSearchIndex | undefined): Promise<void> {
  if (!index) throw new Error('no index');
  for (;;) {
    const r = await index.folder.round();
    if (!r.folded && !r.tombstones && !r.merged) return;
  }
}

describeSearchContract(
  'postgres, pending tail only',
  (pool) => createPostgresIndex(pool, { autoFold: false }),
  async () => {},
);

let folded: PostgresSearchIndex | undefined;
describeSearchContract(
  'postgres, folded',
  (pool: pg.Pool) => (folded = createPostgresIndex(pool, { autoFold: false })),
  () => foldEverything(folded),
);

let merged: PostgresSearchIndex | undefined;
describeSearchContract(
  'postgres, small segments merged',
  (pool: pg.Pool) => (merged = createPostgresIndex(pool, { foldBatchSize: 7, autoFold: false })),
  () => foldEverything(merged),
);
