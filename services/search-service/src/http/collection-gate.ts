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
export class CollectionGate {
  /** operations in flight per collection (searches running or waiting included) */
  private readonly inFlight = new Map<string, number>();
  private readonly searches = new Map<string, { active: number; waiting: Array<() => void> }>();

  constructor(private readonly limit: number) {}

  /** Runs any other operation of a collection, counting the collection as busy meanwhile. */
  async track<T>(collectionId: string, work: () => Promise<T>): Promise<T> {
    this.enter(collectionId);
    try {
      return await work();
    } finally {
      this.leave(collectionId);
    }
  }

  /** Runs a search of a collection when its share of the cap allows. */
  async run<T>(collectionId: string, work: () => Promise<T>): Promise<T> {
    if (this.limit <= 0) return this.track(collectionId, work);
    this.enter(collectionId);
    let slot = this.searches.get(collectionId);
    if (!slot) {
      slot = { active: 0, waiting: [] };
      this.searches.set(collectionId, slot);
    }
    const mine = slot;
    if (mine.active >= this.cap()) await new Promise<void>((resolve) => mine.waiting.push(resolve));
    else mine.active++;
    try {
      return await work();
    } finally {
      this.leave(collectionId);
      mine.active--;
      // the freed slot (or more, when fewer collections are busy now) goes to the next searches
      while (mine.waiting.length > 0 && mine.active < this.cap()) {
        mine.active++;
        mine.waiting.shift()!();
      }
      if (mine.active === 0) this.searches.delete(collectionId);
    }
  }

  /** searches of one collection allowed to run at once now */
  cap(): number {
    if (this.limit <= 0) return Infinity;
    return Math.max(1, Math.floor(this.limit / Math.max(1, this.inFlight.size)));
  }

  /** searches running and waiting, per collection (tests) */
  load(collectionId: string): { active: number; waiting: number } {
    const slot = this.searches.get(collectionId);
    return { active: slot?.active ?? 0, waiting: slot?.waiting.length ?? 0 };
  }

  private enter(collectionId: string): void {
    this.inFlight.set(collectionId, (this.inFlight.get(collectionId) ?? 0) + 1);
  }

  private leave(collectionId: string): void {
    const n = this.inFlight.get(collectionId)! - 1;
    if (n === 0) this.inFlight.delete(collectionId);
    else this.inFlight.set(collectionId, n);
  }
}
