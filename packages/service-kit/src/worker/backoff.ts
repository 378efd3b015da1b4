/**
 * The delay before retry number `attempt` (1 = the first retry): `baseMs` doubled per attempt
 * up to `maxMs`, with ±20 % jitter so failed work of many rows does not come back at once.
 */
export function backoffMs(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random = Math.random,
): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(attempt - 1, 30)));
  return Math.round(exp * (0.8 + 0.4 * random()));
}
