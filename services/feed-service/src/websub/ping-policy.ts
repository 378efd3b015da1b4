/** How hard the pinger tries; the defaults are the service's, tests shorten them. */
export interface PingPolicy {
  /** attempts per ping, the first one included */
  attempts: number;
  /** wait before the first retry; doubled for each further retry, up to maxDelayMs */
  baseDelayMs: number;
  maxDelayMs: number;
  /** time limit of one attempt */
  timeoutMs: number;
  /** on close(): how long attempts under way may still finish before they are aborted */
  drainMs: number;
}

/** 5 attempts, retries after ~1, 2, 4, 8 s (~15 s of waiting at most), 10 s per attempt. */
export const DEFAULT_PING_POLICY: PingPolicy = {
  attempts: 5,
  baseDelayMs: 1000,
  maxDelayMs: 8000,
  timeoutMs: 10_000,
  drainMs: 2000,
};

/**
 * Wait before retry number `failed` (1 after the first failure): exponential, capped, with
 * "equal jitter" (between half and all of it), so instances do not retry in step.
 */
export function backoffDelay(policy: PingPolicy, failed: number, random = Math.random): number {
  const full = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failed - 1));
  return Math.round(full / 2 + (random() * full) / 2);
}
