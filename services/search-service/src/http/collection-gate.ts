import { SEARCH_RETRY_AFTER_SECONDS } from '@hub/contracts';
import { ServiceError } from '@hub/service-kit';
import { HTTP_ERRORS } from './errors';

/**
 * Fair sharing of the cores between collections. A search is CPU work on cores that every
 * collection shares: without a cap, one collection's clients can take the whole machine and
 * slow every other collection's adds and searches. So the searches of one collection that run
 * at a time are capped at `limit` divided by the number of collections busy right now (this
 * one and every other **demanding** one), at least 1; more wait, in order of arrival. A
 * collection only ever waits behind its own searches.
 *
 * Demanding: a collection's operations in flight (adds, updates, deletes, searches running or
 * waiting), averaged over time with a time constant of `demandWindowMs` (1 s), reach `limit`.
 * Such a collection keeps as much work in flight as there are cores: it could take the machine
 * by itself, so the others share with it (16 clients adding or searching as fast as they can
 * average ~16). One below the line (a trickle of writes: 50 adds/s of ~10 ms average 0.5; one
 * client searching in a loop averages 1) cannot take the cores from anyone, and it takes no
 * share: before this rule, every operation in flight counted, so 50 writes/s to one collection
 * halved another collection's searches most of the time. The average is exact for the
 * piecewise-constant count (e^(−Δt/τ) at each change), so it rises within ~0.1 s of 16
 * clients starting and falls below the line ~2 s after they stop, instead of flipping with
 * each operation.
 * limit 0: no cap.
 *
 * The wait is bounded, in number and in time: each waiting search holds its request in memory,
 * and a collection's clients could otherwise grow its queue without end. A search that finds
 * `maxWaiting` searches of its collection already waiting is refused at once, and one that has
 * waited `maxWaitMs` is refused then rather than served late: both with 429 `too many
 * requests` and `Retry-After: 1` (the contracts' SEARCH_RETRY_AFTER_SECONDS: a collection
 * beyond its share should slow down; its queue drains in well under a second at usual search
 * times). Other collections are not affected.
 */
export interface CollectionGate {
  /** Runs any other operation of a collection, counting the collection as busy meanwhile. */
  track<T>(collectionId: string, work: () => Promise<T>): Promise<T>;
  /**
   * Runs a search of a collection when its share of the cap allows; throws the 429 ServiceError
   * when the collection's queue is full or the search waited too long. A search whose `signal`
   * aborts while it waits (its client went away) leaves the queue at once, refused the same way.
   */
  run<T>(collectionId: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** searches of `collectionId` (of a collection with no demanding other, when absent) allowed to run at once now */
  cap(collectionId?: string): number;
  /** searches running and waiting, per collection (tests) */
  load(collectionId: string): { active: number; waiting: number };
}

export interface WaitBounds {
  /** searches of one collection waiting at once; one more is refused (0: none may wait) */
  maxWaiting: number;
  /** longest wait of a search, in ms; then it is refused */
  maxWaitMs: number;
}

/** The defaults of SEARCH_MAX_QUEUED_SEARCHES and SEARCH_MAX_SEARCH_WAIT_MS. */
export const DEFAULT_WAIT_BOUNDS: WaitBounds = { maxWaiting: 64, maxWaitMs: 10_000 };

export interface DemandOptions {
  /** the time constant of a collection's average operations in flight, in ms */
  demandWindowMs: number;
  /** milliseconds, monotonic (tests move it by hand) */
  now: () => number;
}

export const DEFAULT_DEMAND: DemandOptions = {
  demandWindowMs: 1_000,
  now: () => performance.now(),
};

/** An average this small with nothing in flight is forgotten (the collection is idle). */
const IDLE_AVERAGE = 0.01;

/** A collection's operations in flight, and their average over time up to `at`. */
interface Demand {
  inFlight: number;
  average: number;
  at: number;
}

function refused(): ServiceError {
  return new ServiceError(HTTP_ERRORS.tooManyRequests, {
    headers: { 'Retry-After': String(SEARCH_RETRY_AFTER_SECONDS) },
  });
}

/** A search waiting for a slot; `start` hands it the slot (the caller counted it active). */
interface Waiter {
  start(): void;
}

export function createCollectionGate(
  limit: number,
  bounds: WaitBounds = DEFAULT_WAIT_BOUNDS,
  demandOptions: DemandOptions = DEFAULT_DEMAND,
): CollectionGate {
  const { demandWindowMs, now } = demandOptions;
  /** operations in flight per collection (searches running or waiting included), averaged */
  const demand = new Map<string, Demand>();
  const searches = new Map<string, { active: number; waiting: Waiter[] }>();

  /** brings `d.average` up to time `t`: the count held constant since `d.at` */
  function settle(d: Demand, t: number): void {
    const dt = t - d.at;
    if (dt <= 0) return;
    d.average = d.inFlight + (d.average - d.inFlight) * Math.exp(-dt / demandWindowMs);
    d.at = t;
  }

  function enter(collectionId: string): void {
    const t = now();
    let d = demand.get(collectionId);
    if (!d) {
      d = { inFlight: 0, average: 0, at: t };
      demand.set(collectionId, d);
    }
    settle(d, t);
    d.inFlight++;
  }

  function leave(collectionId: string): void {
    const d = demand.get(collectionId)!;
    settle(d, now());
    d.inFlight--;
  }

  function cap(collectionId?: string): number {
    if (limit <= 0) return Infinity;
    const t = now();
    let demandingOthers = 0;
    for (const [id, d] of demand) {
      settle(d, t);
      if (d.inFlight === 0 && d.average < IDLE_AVERAGE) demand.delete(id);
      else if (id !== collectionId && d.average >= limit) demandingOthers++;
    }
    return Math.max(1, Math.floor(limit / (1 + demandingOthers)));
  }

  async function track<T>(collectionId: string, work: () => Promise<T>): Promise<T> {
    enter(collectionId);
    try {
      return await work();
    } finally {
      leave(collectionId);
    }
  }

  async function run<T>(
    collectionId: string,
    work: () => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    if (limit <= 0) return track(collectionId, work);
    enter(collectionId);
    let slot = searches.get(collectionId);
    if (!slot) {
      slot = { active: 0, waiting: [] };
      searches.set(collectionId, slot);
    }
    const mine = slot;
    if (mine.active < cap(collectionId)) mine.active++;
    else {
      try {
        await waitForSlot(mine.waiting, signal);
      } catch (e) {
        leave(collectionId); // its collection's searches are still running: the entry stays
        throw e;
      }
    }
    try {
      return await work();
    } finally {
      leave(collectionId);
      mine.active--;
      // the freed slot (or more, when fewer collections are busy now) goes to the next searches
      while (mine.waiting.length > 0 && mine.active < cap(collectionId)) {
        mine.active++;
        mine.waiting.shift()!.start();
      }
      if (mine.active === 0) searches.delete(collectionId);
    }
  }

  /**
   * Queues a search (when there is room) until it is given a slot, has waited too long, or its
   * signal aborts.
   */
  function waitForSlot(waiting: Waiter[], signal?: AbortSignal): Promise<void> {
    if (waiting.length >= bounds.maxWaiting || signal?.aborted) return Promise.reject(refused());
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', giveUp);
      };
      const giveUp = () => {
        done();
        waiting.splice(waiting.indexOf(waiter), 1);
        reject(refused());
      };
      const waiter: Waiter = {
        start() {
          done();
          resolve();
        },
      };
      const timer = setTimeout(giveUp, bounds.maxWaitMs);
      signal?.addEventListener('abort', giveUp);
      waiting.push(waiter);
    });
  }

  return {
    track,
    run,
    cap,
    load(collectionId) {
      const slot = searches.get(collectionId);
      return { active: slot?.active ?? 0, waiting: slot?.waiting.length ?? 0 };
    },
  };
}
