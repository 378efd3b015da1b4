/**
 * What a search needs to know about every folded document of one collection, by document
 * number: its documents.id and score_regdate, and all numbers in result order (regdate
 * descending, then documents.id descending). Numbers are never reused and a number's
 * (id, regdate) never changes (a changed document gets a new number), so a view only grows:
 * it is extended with the segments folded since, never rebuilt.
 */
/**
 * New numbers are put in place one by one (insertEach) when they are fewer than this share
 * (1/n) of the loaded ones, else merged in one pass (mergeAll).
 */
const INSERT_BELOW_SHARE = 32;

export class CollectionView {
  /** document numbers 0 .. size - 1 are loaded */
  size = 0;
  docId = new Float64Array(1024);
  regdate = new Float64Array(1024);
  /** the loaded numbers in result order */
  order = new Uint32Array(1024);
  /** each loaded number's position in `order` (so a small set is ordered by a numeric sort) */
  rank = new Uint32Array(1024);

  constructor(
    readonly collectionId: string,
    readonly epoch: string,
  ) {}

  /** memory held, for the cache's size limit */
  get bytes(): number {
    return (
      this.docId.byteLength +
      this.regdate.byteLength +
      this.order.byteLength +
      this.rank.byteLength +
      64
    );
  }

  /** true when a comes before b in result order */
  before(a: number, b: number): boolean {
    const ra = this.regdate[a]!;
    const rb = this.regdate[b]!;
    return ra > rb || (ra === rb && this.docId[a]! > this.docId[b]!);
  }

  /**
   * Adds numbers first .. first + ids.length - 1 (ids and regdates of a segment, or the part
   * of one not loaded yet). Numbers must arrive in order, without gaps.
   */
  append(first: number, ids: ArrayLike<number>, regdates: ArrayLike<number>): void {
    this.appendSegments([{ firstDocno: first, docIds: ids, regdates }]);
  }

  /**
   * Adds the numbers of these segments (in firstDocno order, each starting where the previous
   * one ends, the first at or before `size`) in one step: one sort of the new numbers, one
   * merge into the order and one pass over the ranks, however many segments. A view built after
   * a bulk load or a restart takes every segment of the collection at once; appending them one
   * by one redid the merge and the ranks of the whole view per segment.
   */
  appendSegments(
    segments: ReadonlyArray<{
      firstDocno: number;
      docIds: ArrayLike<number>;
      regdates: ArrayLike<number>;
    }>,
  ): void {
    const start = this.size;
    let end = start;
    for (const s of segments) {
      if (s.firstDocno > end) throw new Error(`view of ${this.collectionId}: gap at ${end}`);
      end = Math.max(end, s.firstDocno + s.docIds.length);
    }
    const added = end - start;
    if (added <= 0) return;
    this.grow(end);
    for (const s of segments) {
      for (let i = Math.max(0, start - s.firstDocno); i < s.docIds.length; i++) {
        const d = s.firstDocno + i;
        this.docId[d] = s.docIds[i]!;
        this.regdate[d] = s.regdates[i]!;
      }
    }
    const fresh = new Uint32Array(added);
    for (let i = 0; i < added; i++) fresh[i] = start + i;
    this.sortInResultOrder(fresh);
    /** the first position of the order that changed: ranks before it stay */
    let changedFrom = 0;
    if (added * INSERT_BELOW_SHARE < start) changedFrom = this.insertEach(fresh, start);
    else this.mergeAll(fresh, start);
    this.size = end;
    for (let k = changedFrom; k < end; k++) this.rank[this.order[k]!] = k;
  }

  /**
   * Merges the sorted new numbers into the order of the `start` loaded ones, from the back: one
   * comparison per position.
   */
  private mergeAll(fresh: Uint32Array, start: number): void {
    let i = start - 1;
    let j = fresh.length - 1;
    for (let k = start + fresh.length - 1; k >= 0 && j >= 0; k--) {
      if (i >= 0 && this.before(fresh[j]!, this.order[i]!)) this.order[k] = this.order[i--]!;
      else this.order[k] = fresh[j--]!;
    }
  }

  /**
   * Puts each of a few sorted new numbers at its place in the order of the `start` loaded ones
   * (a binary search each), moving the loaded numbers between two places with one copyWithin:
   * O(m log n) comparisons and one move of the tail, where mergeAll compares at every position.
   * A fold of 50 documents into a view of 1,000,000 took 12 ms of the service thread with
   * mergeAll (every search in flight waiting), measured alone. Returns the first position that
   * changed.
   */
  private insertEach(fresh: Uint32Array, start: number): number {
    const order = this.order;
    let end = start; // the loaded numbers not moved yet are order[0 .. end)
    let first = start;
    for (let j = fresh.length - 1; j >= 0; j--) {
      // the first loaded position that comes after fresh[j]
      let lo = 0;
      let hi = end;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.before(fresh[j]!, order[mid]!)) hi = mid;
        else lo = mid + 1;
      }
      order.copyWithin(lo + j + 1, lo, end);
      order[lo + j] = fresh[j]!;
      end = lo;
      first = lo + j;
    }
    return first;
  }

  /**
   * Sorts numbers into result order (`before`): a bottom-up merge sort over typed arrays,
   * rather than TypedArray.sort, which goes through a comparator closure per comparison.
   * Numbers are distinct, so the order is total.
   */
  private sortInResultOrder(nums: Uint32Array): void {
    const n = nums.length;
    let from: Uint32Array = nums;
    let to: Uint32Array = new Uint32Array(n);
    for (let width = 1; width < n; width *= 2) {
      for (let lo = 0; lo < n; lo += 2 * width) {
        const mid = Math.min(lo + width, n);
        const hi = Math.min(lo + 2 * width, n);
        let a = lo;
        let b = mid;
        let k = lo;
        while (a < mid && b < hi) {
          if (this.before(from[b]!, from[a]!)) to[k++] = from[b++]!;
          else to[k++] = from[a++]!;
        }
        while (a < mid) to[k++] = from[a++]!;
        while (b < hi) to[k++] = from[b++]!;
      }
      [from, to] = [to, from];
    }
    if (from !== nums) nums.set(from);
  }

  /**
   * The positions [lo, hi) of `order` whose regdate lies in [from, to] (either bound may be
   * absent).
   */
  positions(from: number | null, to: number | null): [number, number] {
    // order is by regdate descending: first position with regdate <= to, first with < from
    const firstAtMost = (bound: number) => this.search((r) => r <= bound);
    const lo = to === null ? 0 : firstAtMost(to);
    const hi = from === null ? this.size : this.search((r) => r < from);
    return [lo, Math.max(lo, hi)];
  }

  /** the first position whose regdate satisfies `ok` (ok is monotone along the order) */
  private search(ok: (regdate: number) => boolean): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ok(this.regdate[this.order[mid]!]!)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  private grow(size: number): void {
    if (size <= this.docId.length) return;
    let capacity = this.docId.length;
    while (capacity < size) capacity *= 2;
    const docId = new Float64Array(capacity);
    docId.set(this.docId.subarray(0, this.size));
    const regdate = new Float64Array(capacity);
    regdate.set(this.regdate.subarray(0, this.size));
    const order = new Uint32Array(capacity);
    order.set(this.order.subarray(0, this.size));
    // the ranks too: appendSegments rewrites them only from the first position it changed
    const rank = new Uint32Array(capacity);
    rank.set(this.rank.subarray(0, this.size));
    this.docId = docId;
    this.regdate = regdate;
    this.order = order;
    this.rank = rank;
  }
}
