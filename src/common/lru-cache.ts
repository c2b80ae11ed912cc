/** An entry and when it was last moved to the most-recent end. */
interface Slot<V> {
  value: V;
  movedAt: number;
}

/**
 * A bounded, approximately least-recently-used map. A JavaScript Map iterates in insertion
 * order, so re-inserting a key moves it to the most-recent end and the first key is the one to
 * evict: no linked list.
 *
 * A read only moves its entry when the entry is in the older half, i.e. when more than
 * `capacity / 2` reads and writes happened since it was last moved. Hot entries (the common
 * case for redirects) are then read without touching the Map's order: moving costs a delete and
 * an insert, and the Map's table fills with deleted slots and is rebuilt every few hundred
 * reads. The eviction guarantee stays useful: the entry evicted was not used in at least the
 * last `capacity / 2` operations.
 *
 * A capacity of 0 disables the cache: `get` always misses and `set` stores nothing.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, Slot<V>>();
  /** Counts reads and writes: the clock behind `Slot.movedAt`. */
  private clock = 0;
  private readonly moveAfter: number;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0) throw new RangeError(`Invalid LRU capacity: ${capacity}`);
    this.moveAfter = capacity / 2;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const slot = this.entries.get(key);
    if (slot === undefined) return undefined;
    const now = ++this.clock;
    if (now - slot.movedAt > this.moveAfter) {
      // Re-inserting marks the entry as the most recently used.
      this.entries.delete(key);
      this.entries.set(key, slot);
      slot.movedAt = now;
    }
    return slot.value;
  }

  set(key: K, value: V): void {
    if (this.capacity === 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value, movedAt: ++this.clock });
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as K;
      this.entries.delete(oldest);
    }
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
