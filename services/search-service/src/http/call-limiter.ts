import type pg from 'pg';
import type { Logger } from '@hub/service-kit';
import { reserveCalls, settleCalls } from './call-blocks';

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

interface Counter {
  windowStart: number;
  /** calls reserved for this instance in the shared row and not used yet */
  block: number;
  /** calls admitted from blocks and not yet settled in the shared row */
  used: number;
  /** the calls of the window settled in the shared row, as of the last round trip */
  calls: number;
  /** no block was left for this instance: refuse from memory until then (ms) */
  retryAt: number;
  /** calls were admitted since the last flush (an idle counter gives its block back) */
  active: boolean;
  /** the reservation under way, which every call that finds no block waits for */
  reserving: Promise<void> | null;
  /** the counter's round trips run one after the other */
  queue: Promise<void>;
}

interface Leftover {
  collectionId: string;
  windowStart: number;
  used: number;
  returned: number;
}

/**
 * The API call limit of every collection, shared by all instances through one counter row per
 * collection and window (api_calls), without a database round trip per request:
 *  - A call is admitted only from a block of calls this instance reserved in the row; the
 *    reservation is atomic and never lets calls + reserved pass the maximum, so all instances
 *    together never admit more than the maximum (overshoot 0, for any number of instances).
 *  - A block is at most `blockSize`, at most 1/8 of what is left above `exactMargin`, and one
 *    call within `exactMargin` of the limit. Reserving also settles what was used before.
 *  - Every `flushMs`, used calls are settled; a block not touched for a whole interval is given
 *    back (close() gives everything back), so another instance can use it.
 *  - With no block left for it, an instance refuses from memory: until the window ends once the
 *    settled count has reached the maximum, else for `flushMs` (other instances still hold
 *    reserved calls). A refused call is never counted.
 */
export class CallLimiter {
  private readonly counters = new Map<string, Counter>();
  /** what counters of windows that have ended still have to settle */
  private readonly leftovers: Leftover[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private lastCleanup = 0;
  private readonly now: () => number;
  private readonly blockSize: number;

  constructor(private readonly opts: CallLimiterOptions) {
    this.now = opts.now ?? Date.now;
    this.blockSize = Math.max(1, opts.blockSize ?? DEFAULT_CALL_BLOCK);
  }

  private windowStart(): number {
    const seconds = Math.floor(this.now() / 1000);
    return seconds - (seconds % this.opts.windowSeconds);
  }

  private counter(collectionId: string): Counter {
    const windowStart = this.windowStart();
    const c = this.counters.get(collectionId);
    if (c && c.windowStart === windowStart) return c;
    if (c && (c.used > 0 || c.block > 0)) {
      this.leftovers.push({
        collectionId,
        windowStart: c.windowStart,
        used: c.used,
        returned: c.block,
      });
      this.scheduleFlush();
    }
    const fresh: Counter = {
      windowStart,
      block: 0,
      used: 0,
      calls: 0,
      retryAt: 0,
      active: false,
      reserving: null,
      queue: Promise.resolve(),
    };
    this.counters.set(collectionId, fresh);
    return fresh;
  }

  /** Admits (and counts) one call, or refuses it. Throws when the database is needed and fails. */
  async admit(collectionId: string, maxCalls: number): Promise<boolean> {
    for (;;) {
      const c = this.counter(collectionId);
      if (c.block > 0) {
        c.block--;
        c.used++;
        c.active = true;
        this.scheduleFlush();
        return true;
      }
      if (c.calls >= maxCalls || this.now() < c.retryAt) return false;
      if (!c.reserving) {
        const reserving = this.reserve(collectionId, c, maxCalls).finally(() => {
          c.reserving = null;
        });
        c.reserving = reserving;
      }
      await c.reserving;
    }
  }

  /** Runs the counter's round trips one at a time, in order. */
  private exclusive<T>(c: Counter, work: () => Promise<T>): Promise<T> {
    const run = c.queue.then(work);
    c.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Settles what was used and reserves a new block (one round trip). */
  private reserve(collectionId: string, c: Counter, maxCalls: number): Promise<void> {
    return this.exclusive(c, async () => {
      const used = c.used;
      c.used = 0;
      try {
        const r = await reserveCalls(this.opts.pool, {
          collectionId,
          windowStart: c.windowStart,
          used,
          maxCalls,
          block: this.blockSize,
          margin: this.opts.exactMargin,
        });
        c.calls = Math.max(c.calls, r.calls);
        c.block += r.granted;
        if (r.granted === 0) c.retryAt = this.now() + this.opts.flushMs;
        else this.scheduleFlush();
      } catch (e) {
        c.used += used;
        throw e;
      }
    });
  }

  /** Settles what one counter used; gives its block back when asked. */
  private settle(collectionId: string, c: Counter, giveBack: boolean): Promise<void> {
    return this.exclusive(c, async () => {
      const used = c.used;
      const returned = giveBack ? c.block : 0;
      if (used === 0 && returned === 0) return;
      c.used = 0;
      c.block -= returned;
      try {
        const calls = await settleCalls(this.opts.pool, {
          collectionId,
          windowStart: c.windowStart,
          used,
          returned,
        });
        c.calls = Math.max(c.calls, calls);
      } catch (e) {
        c.used += used;
        c.block += returned;
        throw e;
      }
    });
  }

  private scheduleFlush(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.opts.flushMs);
    this.timer.unref();
  }

  /**
   * Settles every used call in the shared counters and gives back the blocks of counters that
   * admitted nothing since the previous flush (also used by tests).
   */
  flush(): Promise<void> {
    return this.run(false);
  }

  private async run(giveBackAll: boolean): Promise<void> {
    while (this.flushing) await this.flushing;
    this.flushing = this.flushOnce(giveBackAll).finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async flushOnce(giveBackAll: boolean): Promise<void> {
    const work: Array<Promise<void>> = [];
    for (const [collectionId, c] of this.counters) {
      const giveBack = giveBackAll || !c.active;
      c.active = false;
      if (c.used > 0 || (giveBack && c.block > 0))
        work.push(this.settle(collectionId, c, giveBack));
    }
    for (const left of this.leftovers.splice(0)) {
      work.push(
        settleCalls(this.opts.pool, left).then(
          () => undefined,
          (e: unknown) => {
            this.leftovers.push(left);
            throw e;
          },
        ),
      );
    }
    const results = await Promise.allSettled(work);
    const failed = results.filter((r) => r.status === 'rejected');
    if (failed.length) {
      this.opts.logger?.warn(
        { err: (failed[0] as PromiseRejectedResult).reason },
        'api call counts not settled; retrying',
      );
    }
    // an unused block is given back once its counter has been idle for a whole interval
    if (failed.length || [...this.counters.values()].some((c) => c.block > 0 || c.used > 0)) {
      if (!giveBackAll) this.scheduleFlush();
    }
    await this.cleanup();
  }

  /** Drops counters of windows that ended long ago (at most once per window). */
  private async cleanup(): Promise<void> {
    const windowStart = this.windowStart();
    if (this.lastCleanup === windowStart) return;
    this.lastCleanup = windowStart;
    for (const [id, c] of this.counters) {
      if (c.windowStart !== windowStart && c.used === 0 && c.block === 0) this.counters.delete(id);
    }
    await this.opts.pool
      .query('DELETE FROM api_calls WHERE window_start < $1', [
        windowStart - 2 * this.opts.windowSeconds,
      ])
      .catch(() => undefined);
  }

  /** Forgets a collection (deleted through the admin API). */
  forget(collectionId: string): void {
    this.counters.delete(collectionId);
  }

  /** Stops the timer, settles what is used and gives every unused block back. */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.run(true).catch(() => undefined);
  }
}
