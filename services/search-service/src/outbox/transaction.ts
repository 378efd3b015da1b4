/**
 * The relay's transactions use the store's inTransaction (src/store/db.ts) and answer a
 * failure of the transaction itself with the error as it is: the relay retries the batch.
 */
export const asIs = (cause: unknown): Error =>
  cause instanceof Error ? cause : new Error(String(cause));
