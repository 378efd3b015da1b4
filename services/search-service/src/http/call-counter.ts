/**
 * What one instance knows of one collection's calls in one window (see call-limiter.ts), and
 * the two rules of its round trips to the shared row: one at a time, and calls handed over in
 * a round trip that fails come back to the counter (to be settled by a later one).
 */
export interface Counter {
  windowStart: number;
  /** calls reserved for this instance in the shared row and not used yet */
  block: number;
  /** the size of the last block granted (see call-limiter.ts: reserving ahead) */
  granted: number;
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

/** What a counter of a window that has ended still has to settle. */
export interface Leftover {
  collectionId: string;
  windowStart: number;
  used: number;
  returned: number;
}

export function newCounter(windowStart: number): Counter {
  return {
    windowStart,
    block: 0,
    granted: 0,
    used: 0,
    calls: 0,
    retryAt: 0,
    active: false,
    reserving: null,
    queue: Promise.resolve(),
  };
}

/** Runs the counter's round trips one at a time, in order. */
export function exclusive<T>(c: Counter, work: () => Promise<T>): Promise<T> {
  const run = c.queue.then(work);
  c.queue = run.then(
    () => undefined,
    () => undefined,
  );
  return run;
}

/**
 * Hands the counter's used calls and `returned` calls of its block to `send` (one round trip
 * to the shared row); when it fails, they are the counter's again and the error is rethrown.
 */
export async function handOver<T>(
  c: Counter,
  returned: number,
  send: (used: number) => Promise<T>,
): Promise<T> {
  const used = c.used;
  c.used = 0;
  c.block -= returned;
  try {
    return await send(used);
  } catch (e) {
    c.used += used;
    c.block += returned;
    throw e;
  }
}
