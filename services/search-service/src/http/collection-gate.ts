import { SEARCH_RETRY_AFTER_SECONDS } from '@hub/contracts';
import { ServiceError } from '@hub/service-kit';
import { HTTP_ERRORS } from './errors';

/**
 * Fair sharing of the cores between collections. A search is CPU work on cores that every
 * collection shares: without a cap, one collection's clients can take the whole machine and
 * slow every other collection's adds and searches. So the searches of one collection that run
 * at a time are capped at its share of `limit`: the whole `limit` while the other collections
 * have fewer operations in flight than `limit` (light traffic, which cannot fill the cores on
 * its own: a collection written at 50/s has one write in flight now and then), else `limit`
 * divided by the number of busy collections (any operation of theirs in flight, this one
 * included), at least 1. More wait, in order of arrival. A collection only ever waits behind
 * its own searches. limit 0: no cap.
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
  /** searches of the collection allowed to run at once now (its share) */
  cap(collectionId: string): number;
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
): CollectionGate {
  /** operations in flight per collection (searches running or waiting included) */
  const inFlight = new Map<string, number>();
  /** operations in flight over all collections */
  let total = 0;
  const searches = new Map<string, { active: number; waiting: Waiter[] }>();

  function enter(collectionId: string): void {
    inFlight.set(collectionId, (inFlight.get(collectionId) ?? 0) + 1);
    total++;
  }

  function leave(collectionId: string): void {
    const n = inFlight.get(collectionId)! - 1;
    if (n === 0) inFlight.delete(collectionId);
    else inFlight.set(collectionId, n);
    total--;
  }

  function cap(collectionId: string): number {
    if (limit <= 0) return Infinity;
    const others = total - (inFlight.get(collectionId) ?? 0);
    if (others < limit) return limit;
    return Math.max(1, Math.floor(limit / inFlight.size));
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
    if (mine.waiting.length === 0 && mine.active < cap(collectionId)) mine.active++;
    else {
      try {
        const turn = waitForSlot(mine.waiting, signal);
        // its arrival may have grown its collection's share: the first in line go first
        startWaiting(collectionId, mine);
        await turn;
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
      // the freed slot (or more, when the others are less busy now) goes to the next searches
      startWaiting(collectionId, mine);
      if (mine.active === 0) searches.delete(collectionId);
    }
  }

  /** Starts a collection's waiting searches, in order, while its share has room. */
  function startWaiting(collectionId: string, mine: { active: number; waiting: Waiter[] }): void {
    while (mine.waiting.length > 0 && mine.active < cap(collectionId)) {
      mine.active++;
      mine.waiting.shift()!.start();
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
