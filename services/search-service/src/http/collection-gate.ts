/**
 * Fair sharing of the cores between collections. A search is CPU work on cores that every
 * collection shares: without a cap, one collection's clients can take the whole machine and
 * slow every other collection's adds and searches. So the searches of one collection that run
 * at a time are capped at `limit` divided by the number of collections busy right now (any
 * operation of theirs in flight, this one included), at least 1; more wait, in order of
 * arrival. Alone, a collection gets the whole `limit`; while another collection adds or
 * searches, each gets its share. A collection only ever waits behind its own searches.
 * limit 0: no cap.
 */
export interface CollectionGate {
  /** Runs any other operation of a collection, counting the collection as busy meanwhile. */
  track<T>(collectionId: string, work: () => Promise<T>): Promise<T>;
  /** Runs a search of a collection when its share of the cap allows. */
  run<T>(collectionId: string, work: () => Promise<T>): Promise<T>;
  /** searches of one collection allowed to run at once now */
  cap(): number;
  /** searches running and waiting, per collection (tests) */
  load(collectionId: string): { active: number; waiting: number };
}

export function createCollectionGate(limit: number): CollectionGate {
  /** operations in flight per collection (searches running or waiting included) */
  const inFlight = new Map<string, number>();
  const searches = new Map<string, { active: number; waiting: Array<() => void> }>();

  function enter(collectionId: string): void {
    inFlight.set(collectionId, (inFlight.get(collectionId) ?? 0) + 1);
  }

  function leave(collectionId: string): void {
    const n = inFlight.get(collectionId)! - 1;
    if (n === 0) inFlight.delete(collectionId);
    else inFlight.set(collectionId, n);
  }

  function cap(): number {
    if (limit <= 0) return Infinity;
    return Math.max(1, Math.floor(limit / Math.max(1, inFlight.size)));
  }

  async function track<T>(collectionId: string, work: () => Promise<T>): Promise<T> {
    enter(collectionId);
    try {
      return await work();
    } finally {
      leave(collectionId);
    }
  }

  async function run<T>(collectionId: string, work: () => Promise<T>): Promise<T> {
    if (limit <= 0) return track(collectionId, work);
    enter(collectionId);
    let slot = searches.get(collectionId);
    if (!slot) {
      slot = { active: 0, waiting: [] };
      searches.set(collectionId, slot);
    }
    const mine = slot;
    if (mine.active >= cap()) await new Promise<void>((resolve) => mine.waiting.push(resolve));
    else mine.active++;
    try {
      return await work();
    } finally {
      leave(collectionId);
      mine.active--;
      // the freed slot (or more, when fewer collections are busy now) goes to the next searches
      while (mine.waiting.length > 0 && mine.active < cap()) {
        mine.active++;
        mine.waiting.shift()!();
      }
      if (mine.active === 0) searches.delete(collectionId);
    }
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
