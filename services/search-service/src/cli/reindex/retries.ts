import { errorText } from '@hub/service-kit';
import type { MeiliCall } from './queue';

/** How often to try a step again while Meilisearch does not answer, and how long to wait. */
export interface RetryPolicy {
  /** tries of one step in all (--retries + 1) */
  attempts: number;
  /** the wait after failed try number `failed` (2 s, doubled, at most 30 s) */
  delay(failed: number): number;
  /** where a failed try is told (stderr) */
  note(line: string): void;
}

export function retryPolicy(
  retries: number,
  firstDelayMs: number,
  note: (line: string) => void,
): RetryPolicy {
  return {
    attempts: retries + 1,
    delay: (failed) => Math.min(firstDelayMs * 2 ** (failed - 1), 30_000),
    note,
  };
}

/** Meilisearch did not answer within the retries (exit status 3). */
export class MeilisearchDownError extends Error {}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Tells that `what` failed for the `failed`-th time and waits before the next try. */
export async function waitToRetry(
  policy: RetryPolicy,
  what: string,
  err: unknown,
  failed: number,
): Promise<void> {
  const delay = policy.delay(failed);
  policy.note(
    `reindex: ${what} failed (${errorText(err)}); attempt ${failed + 1} of ${policy.attempts} in ${delay} ms`,
  );
  await sleep(delay);
}

/** A MeiliCall that tries each step at most policy.attempts times, then MeilisearchDownError. */
export function withRetries(policy: RetryPolicy): MeiliCall {
  return async (what, call) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        if (attempt >= policy.attempts)
          throw new MeilisearchDownError(
            `Meilisearch did not answer after ${policy.attempts} attempts (${what}: ${errorText(err)})`,
          );
        await waitToRetry(policy, what, err, attempt);
      }
    }
  };
}
