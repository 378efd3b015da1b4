import type pg from 'pg';
import type { Logger } from '@hub/service-kit';
import { reserveCalls, settleCalls } from './call-blocks';
import { exclusive, handOver, newCounter, type Counter, type Leftover } from './call-counter';

export interface CallLimiterOptions {
  pool: pg.Pool;
  /** length of a window; windows are fixed and aligned to the UNIX epoch */
  windowSeconds: number;
  /** how often used calls are settled in the shared row (and idle blocks given back) */
  flushMs: number;
  /** within this many calls of the limit, blocks are of one call (each call goes to the database) */
  exactMargin: number;
  /** the largest block of calls an instance reserves at once (default DEFAULT_CALL_BLOCK) */
  blockSize?: number;
  logger?: Logger;
  now?: () => number;
}

/** The largest block an instance reserves: ~a quarter of a second of calls at 1,000 calls/s. */
export const DEFAULT_CALL_BLOCK = 256;

/** Blocks of fewer calls (near the limit) are not reserved ahead: see createCallLimiter. */
export const RESERVE_AHEAD_MIN_BLOCK = 16;

/**
 * The API call limit of every collection, shared by all instances through one counter row per
 * collection and window (api_calls), without a database round trip per request:
 *  - A call is admitted only from a block of calls this instance reserved in the row; the
 *    reservation is atomic and never lets calls + reserved pass the maximum, so all instances
 *    together never admit more than the maximum (overshoot 0, for any number of instances).
 *  - A block is at most `blockSize`, at most 1/8 of what is left above `exactMargin`, and one
 *    call within `exactMargin` of the limit. Reserving also settles what was used before.
 *  - The next block is reserved ahead, in the background, once half of a block of at least
 *    RESERVE_AHEAD_MIN_BLOCK calls is used: a call waits for the database only when its
 *    instance has no block yet (the first call of a window) or is near the limit. A reservation
 *    commits, and a commit can wait on the WAL; after a bulk load, 1–2 % of searches waited
 *    2–5 ms on average (up to 46 ms) for one that was on their path (measured 2026-11-27).
 *    A reservation ahead that fails is logged; the call that runs out of block tries again.
 *  - Every `flushMs`, used calls are settled; a block not touched for a whole interval is given
 *    back (close() gives everything back), so another instance can use it.
 *  - With no block left for it, an instance refuses from memory: until the window ends once the
 *    settled count has reached the maximum, else for `flushMs` (other instances still hold
 *    reserved calls). A refused call is never counted.
 * The counters and their round trips: call-counter.ts; the SQL: call-blocks.ts.
 */
export interface CallLimiter {
  /** Admits (and counts) one call, or refuses it. Throws when the database is needed and fails. */
  admit(collectionId: string, maxCalls: number): Promise<boolean>;
  /**
   * Settles every used call in the shared counters and gives back the blocks of counters that
   * admitted nothing since the previous flush (also used by tests).
   */
  flush(): Promise<void>;
  /** Forgets a collection (deleted through the admin API). */
  forget(collectionId: string): void;
  /** Stops the timer, settles what is used and gives every unused block back. */
  close(): Promise<void>;
}

export function createCallLimiter(opts: CallLimiterOptions): CallLimiter {
  const { pool, windowSeconds, flushMs, exactMargin, logger } = opts;
  const now = opts.now ?? Date.now;
  const blockSize = Math.max(1, opts.blockSize ?? DEFAULT_CALL_BLOCK);
  const counters = new Map<string, Counter>();
  /** what counters of windows that have ended still have to settle */
  const leftovers: Leftover[] = [];
  let timer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> | null = null;
  let lastCleanup = 0;

  function windowStartNow(): number {
    const seconds = Math.floor(now() / 1000);
    return seconds - (seconds % windowSeconds);
  }

  function counter(collectionId: string): Counter {
    const windowStart = windowStartNow();
    const c = counters.get(collectionId);
    if (c && c.windowStart === windowStart) return c;
    if (c && (c.used > 0 || c.block > 0)) {
      leftovers.push({
        collectionId,
        windowStart: c.windowStart,
        used: c.used,
        returned: c.block,
      });
      scheduleFlush();
    }
    const fresh = newCounter(windowStart);
    counters.set(collectionId, fresh);
    return fresh;
  }

  async function admit(collectionId: string, maxCalls: number): Promise<boolean> {
    for (;;) {
      const c = counter(collectionId);
      if (c.block > 0) {
        c.block--;
        c.used++;
        c.active = true;
        scheduleFlush();
        if (runningLow(c)) reserveAhead(collectionId, c, maxCalls);
        return true;
      }
      if (c.calls >= maxCalls || now() < c.retryAt) return false;
      if (!c.reserving) {
        const reserving = reserve(collectionId, c, maxCalls).finally(() => {
          c.reserving = null;
        });
        c.reserving = reserving;
      }
      await c.reserving;
    }
  }

  /** Half of a block large enough to be reserved ahead is used, and no reservation is under way. */
  function runningLow(c: Counter): boolean {
    return (
      c.granted >= RESERVE_AHEAD_MIN_BLOCK &&
      c.block * 2 < c.granted &&
      !c.reserving &&
      now() >= c.retryAt
    );
  }

  /** Reserves the next block in the background; the call that finds no block waits for it. */
  function reserveAhead(collectionId: string, c: Counter, maxCalls: number): void {
    const reserving = reserve(collectionId, c, maxCalls)
      .catch((err: unknown) => {
        logger?.warn({ err, collectionId }, 'api call block not reserved ahead; retried on use');
      })
      .finally(() => {
        if (c.reserving === reserving) c.reserving = null;
      });
    c.reserving = reserving;
  }

  /** Settles what was used and reserves a new block (one round trip). */
  function reserve(collectionId: string, c: Counter, maxCalls: number): Promise<void> {
    return exclusive(c, async () => {
      const r = await handOver(c, 0, (used) =>
        reserveCalls(pool, {
          collectionId,
          windowStart: c.windowStart,
          used,
          maxCalls,
          block: blockSize,
          margin: exactMargin,
        }),
      );
      c.calls = Math.max(c.calls, r.calls);
      c.block += r.granted;
      c.granted = r.granted;
      if (r.granted === 0) c.retryAt = now() + flushMs;
      else scheduleFlush();
    });
  }

  /** Settles what one counter used; gives its block back when asked. */
  function settle(collectionId: string, c: Counter, giveBack: boolean): Promise<void> {
    return exclusive(c, async () => {
      const returned = giveBack ? c.block : 0;
      if (c.used === 0 && returned === 0) return;
      const calls = await handOver(c, returned, (used) =>
        settleCalls(pool, { collectionId, windowStart: c.windowStart, used, returned }),
      );
      c.calls = Math.max(c.calls, calls);
    });
  }

  function scheduleFlush(): void {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      void flush();
    }, flushMs);
    timer.unref();
  }

  function flush(): Promise<void> {
    return run(false);
  }

  async function run(giveBackAll: boolean): Promise<void> {
    while (flushing) await flushing;
    flushing = flushOnce(giveBackAll).finally(() => {
      flushing = null;
    });
    return flushing;
  }

  async function flushOnce(giveBackAll: boolean): Promise<void> {
    const work: Array<Promise<void>> = [];
    for (const [collectionId, c] of counters) {
      const giveBack = giveBackAll || !c.active;
      c.active = false;
      if (c.used > 0 || (giveBack && c.block > 0)) work.push(settle(collectionId, c, giveBack));
    }
    for (const left of leftovers.splice(0)) {
      work.push(
        settleCalls(pool, left).then(
          () => undefined,
          (e: unknown) => {
            leftovers.push(left);
            throw e;
          },
        ),
      );
    }
    const results = await Promise.allSettled(work);
    const failed = results.filter((r) => r.status === 'rejected');
    if (failed.length) {
      logger?.warn(
        { err: (failed[0] as PromiseRejectedResult).reason },
        'api call counts not settled; retrying',
      );
    }
    // an unused block is given back once its counter has been idle for a whole interval
    if (failed.length || [...counters.values()].some((c) => c.block > 0 || c.used > 0)) {
      if (!giveBackAll) scheduleFlush();
    }
    await cleanup();
  }

  /** Drops counters of windows that ended long ago (at most once per window). */
  async function cleanup(): Promise<void> {
    const windowStart = windowStartNow();
    if (lastCleanup === windowStart) return;
    lastCleanup = windowStart;
    for (const [id, c] of counters) {
      if (c.windowStart !== windowStart && c.used === 0 && c.block === 0) counters.delete(id);
    }
    await pool
      .query('DELETE FROM api_calls WHERE window_start < $1', [windowStart - 2 * windowSeconds])
      .catch(() => undefined);
  }

  return {
    admit,
    flush,
    forget(collectionId) {
      counters.delete(collectionId);
    },
    async close() {
      if (timer) clearTimeout(timer);
      timer = null;
      await run(true).catch(() => undefined);
    },
  };
}
