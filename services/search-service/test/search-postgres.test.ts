import { createPostgresIndex } from '../src/index/postgres/postgres-index';
import { describeSearchContract } from './contract/search-contract';

// The Postgres engine writes its search rows in the document's transaction: nothing to wait for.
describeSearchContract(
  'postgres',
  (pool) => createPostgresIndex(pool),
  async () => {},
);
