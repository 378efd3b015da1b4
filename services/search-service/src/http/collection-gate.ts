/**
 * At most `limit` searches of one collection run at a time; more wait, in order of arrival.
 * A search is CPU work on cores that every collection shares: without a cap, one collection's
 * clients can take the whole machine and slow every other collection's adds and searches.
 * A collection only ever waits behind its own searches. limit 0: no cap.
 */
export class CollectionGate {
  private readonly slots = new Map<string, { active: number; waiting: Array<() => void> }>();

  constructor(private readonly limit: number) {}

  async run<T>(collectionId: string, work: () => Promise<T>): Promise<T> {
    if (this.limit <= 0) return work();
    let slot = this.slots.get(collectionId);
    if (!slot) {
      slot = { active: 0, waiting: [] };
      this.slots.set(collectionId, slot);
    }
    const mine = slot;
    if (mine.active >= this.limit) await new Promise<void>((resolve) => mine.waiting.push(resolve));
    else mine.active++;
    try {
      return await work();
    } finally {
      const next = mine.waiting.shift();
      if (next)
        next(); // the slot passes straight to the next search
      else if (--mine.active === 0) this.slots.delete(collectionId);
    }
  }

  /** searches running and waiting, per collection (tests) */
  load(collectionId: string): { active: number; waiting: number } {
    const slot = this.slots.get(collectionId);
    return { active: slot?.active ?? 0, waiting: slot?.waiting.length ?? 0 };
  }
}
