/**
 * The one bounded cache of the service: past `max`, the entry unused the longest goes, and each
 * cache is named, so that /metrics shows its size and how often it answered (src/metrics/). It is a
 * `Map` kept in order of use: the first entry is the one to go, and a hit moves its entry to the end
 * unless the entry is already among the newer half. Moving an entry on every hit (a delete and a
 * set) leaves a hole in the Map's table each time, and the table is rebuilt whenever holes fill it:
 * timed inside the service, that was about half of what a request's lookups cost (docs/decisions.md,
 * "Performance"). So the entries go in the order they were last put at the end, which for a used
 * entry is fewer than `max / 2` placements before its last use (with a `max` of 3 or less, its last
 * use: an exact LRU), and a lookup of a hot entry is one map read.
 *
 * A cache's counts are the process's: every cache of one name adds to the same hits and misses,
 * and its size is the sum of the live ones. A service process builds one app, so one cache of each
 * name; tests that build several apps in one process see them summed.
 */

/** What /metrics shows of the caches of one name. */
export interface CacheStats {
  name: string;
  /** Entries held now. */
  size: number;
  /** Entries it holds at most. */
  max: number;
  /** Lookups answered from the cache, and lookups that were not (absent, or no longer usable). */
  hits: number;
  misses: number;
}

interface Family {
  hits: number;
  misses: number;
  max: number;
  caches: Set<WeakRef<BoundedCache<never, never>>>;
}

const families = new Map<string, Family>();

/** An entry, with the count of insertions at the end when it was last put there. */
interface Slot<V> {
  value: V;
  placed: number;
}

export class BoundedCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>> {
  private readonly entries = new Map<K, Slot<V>>();
  private readonly family: Family;
  /** Insertions at the end so far: an entry among the last `max / 2` placed (rounded down) is among the newer half. */
  private placements = 0;

  /** `name`: lower case words joined by underscores, as a metric label shows it. */
  constructor(
    readonly name: string,
    readonly max: number,
  ) {
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`a cache name is lower case words joined by underscores: ${name}`);
    let family = families.get(name);
    if (!family) families.set(name, (family = { hits: 0, misses: 0, max, caches: new Set() }));
    family.max = max;
    for (const ref of family.caches) if (!ref.deref()) family.caches.delete(ref);
    family.caches.add(new WeakRef(this as unknown as BoundedCache<never, never>));
    this.family = family;
  }

  /**
   * The entry of `key`, counted as used; undefined when there is none, or when `usable` says the
   * entry may no longer be served (then it is dropped). Counted as a hit or a miss.
   */
  get(key: K, usable?: (value: V) => boolean): V | undefined {
    const slot = this.entries.get(key);
    if (slot !== undefined && (usable === undefined || usable(slot.value))) {
      if (this.placements - slot.placed >= this.max >> 1) this.place(key, slot);
      this.family.hits += 1;
      return slot.value;
    }
    if (slot !== undefined) this.entries.delete(key);
    this.family.misses += 1;
    return undefined;
  }

  /** Stores `value` as the most recently used entry; past `max`, the least recently used goes. */
  set(key: K, value: V): void {
    const slot = this.entries.get(key);
    if (slot !== undefined) {
      slot.value = value;
      this.place(key, slot);
      return;
    }
    this.entries.set(key, { value, placed: ++this.placements });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Moves an entry to the end, as the most recently used. */
  private place(key: K, slot: Slot<V>): void {
    this.entries.delete(key);
    this.entries.set(key, slot);
    slot.placed = ++this.placements;
  }
}

/** Every cache name of the process with its counts, by name. */
export function cacheStats(): CacheStats[] {
  return [...families.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, family]) => {
      let size = 0;
      for (const ref of family.caches) {
        const cache = ref.deref();
        if (cache) size += cache.size;
        else family.caches.delete(ref);
      }
      return { name, size, max: family.max, hits: family.hits, misses: family.misses };
    });
}
