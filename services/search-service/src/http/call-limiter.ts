import type pg from 'pg';
import type { Logger } from '@hub/service-kit';

export interface CallLimiterOptions {
  pool: pg.Pool;
  /** length of a window; windows are fixed and aligned to the UNIX epoch */
  windowSeconds: number;
  /** how long locally counted calls may wait before they are added to the shared counter */
  flushMs: number;
  /** within this many calls of the limit, every call is counted in the database at once */
  exactMargin: number;
  logger?: Logger;
  now?: () => number;
}

interface Counter {
  windowStart: number;
  /** the shared count for this window as of this instance's last database round trip */
  known: number;
  /** calls admitted here and not yet added to the shared count */
  pending: number;
  /** calls on their way to the shared count (taken out of pending, round trip not answered) */
  sending: number;
  /** the first round trip of this window, which every other call of the window waits for */
  loading: Promise<boolean> | null;
  /** the counter's round trips run one after the other (an exact check must see every flush) */
  queue: Promise<void>;
}

const ADD_CALLS = `INSERT INTO api_calls AS a (collection_id, window_start, calls) VALUES ($1, $2, $3)
  ON CONFLICT (collection_id, window_start) DO UPDATE SET calls = a.calls + EXCLUDED.calls
  RETURNING calls`;
const TAKE_ONE = 'SELECT total, taken FROM take_api_call($1, $2, $3, $4)';

/**
 * The API call limit of every collection, shared by all instances through one counter row per
 * collection and window (api_calls), without a database round trip per request:
 *  - Far from the limit a call is admitted and counted in memory; counts are added to the
 *    shared row at most `flushMs` later (one round trip per collection per flush).
 *  - The first call of a collection in a window on this instance, and every call within
 *    `exactMargin` of the limit, goes to the database at once (atomic check-and-count).
 *  - Once the shared count has reached the limit, calls are refused from memory until the
 *    window ends (a count never goes down within a window). A refused call is not counted.
 * Overshoot: another instance that has not flushed yet can still admit calls it received in
 * its current flush interval; so with N instances the window can exceed the limit by at most
 * the calls the other N-1 instances receive in one flush interval.
 */
export class CallLimiter {
  private readonly counters = new Map<string, Counter>();
  /** pending counts of windows that have ended, still to be written */
  private readonly leftovers: Array<{ collectionId: string; windowStart: number; calls: number }> =
    [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private lastCleanup = 0;
  private readonly now: () => number;

  constructor(private readonly opts: CallLimiterOptions) {
    this.now = opts.now ?? Date.now;
  }

  private windowStart(): number {
    const seconds = Math.floor(this.now() / 1000);
    return seconds - (seconds % this.opts.windowSeconds);
  }

  /** Admits (and counts) one call, or refuses it. Throws when the database is needed and fails. */
  async admit(collectionId: string, maxCalls: number): Promise<boolean> {
    const windowStart = this.windowStart();
    let c = this.counters.get(collectionId);
    if (c && c.windowStart !== windowStart) {
      if (c.pending > 0) {
        this.leftovers.push({ collectionId, windowStart: c.windowStart, calls: c.pending });
      }
      c = undefined;
    }
    if (!c) {
      // first call of this window here: learn the shared count (and count this call) at once
      const counter: Counter = {
        windowStart,
        known: 0,
        pending: 0,
        sending: 0,
        loading: null,
        queue: Promise.resolve(),
      };
      this.counters.set(collectionId, counter);
      counter.loading = this.admitExactly(collectionId, counter, maxCalls).then(
        (taken) => {
          counter.loading = null;
          return taken;
        },
        (e: unknown) => {
          // not learnt: the next call tries again
          if (this.counters.get(collectionId) === counter) this.counters.delete(collectionId);
          throw e;
        },
      );
      return counter.loading;
    }
    if (c.loading) {
      await c.loading.catch(() => undefined);
      return this.admit(collectionId, maxCalls);
    }
    if (c.known >= maxCalls) return false;
    if (c.known + c.pending + c.sending + this.opts.exactMargin < maxCalls) {
      c.pending++;
      this.scheduleFlush();
      return true;
    }
    return this.admitExactly(collectionId, c, maxCalls);
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

  /**
   * Near the limit: add what is pending and take one call if the count allows it (one round
   * trip, after the counter's earlier round trips, so that it sees every call admitted here).
   */
  private admitExactly(collectionId: string, c: Counter, maxCalls: number): Promise<boolean> {
    c.sending += 1; // this call, until answered: the fast path must not admit past it
    return this.exclusive(c, async () => {
      const pending = c.pending;
      c.pending = 0;
      c.sending += pending;
      try {
        const { rows } = await this.opts.pool.query<{ total: string; taken: boolean }>({
          name: 'api-calls-take-one',
          text: TAKE_ONE,
          values: [collectionId, c.windowStart, pending, maxCalls],
        });
        c.known = Math.max(c.known, Number(rows[0]!.total));
        return rows[0]!.taken;
      } catch (e) {
        c.pending += pending;
        throw e;
      } finally {
        c.sending -= pending + 1;
      }
    });
  }

  /** Adds what is pending for one counter to the shared row. */
  private flushCounter(collectionId: string, c: Counter): Promise<void> {
    return this.exclusive(c, async () => {
      const pending = c.pending;
      if (pending === 0) return;
      c.pending = 0;
      c.sending += pending;
      try {
        const { rows } = await this.opts.pool.query<{ calls: string }>({
          name: 'api-calls-add',
          text: ADD_CALLS,
          values: [collectionId, c.windowStart, pending],
        });
        c.known = Math.max(c.known, Number(rows[0]!.calls));
      } catch (e) {
        c.pending += pending;
        throw e;
      } finally {
        c.sending -= pending;
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

  /** Adds every locally counted call to the shared counters (also used by tests and close). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    this.flushing = this.flushOnce().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    const work: Array<Promise<void>> = [];
    for (const [collectionId, c] of this.counters) {
      if (c.pending > 0) work.push(this.flushCounter(collectionId, c));
    }
    for (const left of this.leftovers.splice(0)) {
      work.push(
        this.opts.pool
          .query({
            name: 'api-calls-add',
            text: ADD_CALLS,
            values: [left.collectionId, left.windowStart, left.calls],
          })
          .then(
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
        'api call counts not flushed; retrying',
      );
      this.scheduleFlush();
    }
    await this.cleanup();
  }

  /** Drops counters of windows that ended long ago (at most once per window). */
  private async cleanup(): Promise<void> {
    const windowStart = this.windowStart();
    if (this.lastCleanup === windowStart) return;
    this.lastCleanup = windowStart;
    for (const [id, c] of this.counters) {
      if (c.windowStart !== windowStart && c.pending === 0) this.counters.delete(id);
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

  /** Stops the timer and writes what is pending. */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush().catch(() => undefined);
  }
}
