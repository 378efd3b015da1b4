/**
 * A bounded map that keeps what was used recently, at the cost of one Map lookup per hit
 * (an exact LRU moves the entry on every hit: a delete and a set). Two generations: new
 * entries go into the young one; a hit in the old one moves the entry back to the young
 * one; when the young one is full it becomes the old one and the former old one is
 * dropped. So it holds at most 2 × `generation` entries, and an entry used at least once
 * per `generation` insertions is never dropped.
 */
export class RecentCache<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();

  constructor(readonly generation: number) {}

  get size(): number {
    return this.young.size + this.old.size;
  }

  get(key: K): V | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const aging = this.old.get(key);
    if (aging !== undefined) {
      this.old.delete(key);
      this.set(key, aging);
    }
    return aging;
  }

  set(key: K, value: V): void {
    if (this.young.size >= this.generation && !this.young.has(key)) {
      this.old = this.young;
      this.young = new Map();
    }
    this.old.delete(key);
    this.young.set(key, value);
  }

  delete(key: K): void {
    this.young.delete(key);
    this.old.delete(key);
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
  }
}
