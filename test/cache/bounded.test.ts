import { describe, expect, it } from 'vitest';
import { BoundedCache, cacheStats } from '../../src/cache/bounded.js';

describe('the bounded cache', () => {
  const statsOf = (name: string) => cacheStats().find((s) => s.name === name)!;

  it('drops the least recently used entry past its bound, a hit counting as a use', () => {
    const cache = new BoundedCache<string, number>('test_lru_order', 3);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('a')).toBe(1); // a is now the most recently used
    cache.set('d', 4); // b goes
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([1, 3, 4]);
    cache.set('c', 30); // a new value is a use too
    cache.set('e', 5); // a goes: c and d were used after it
    expect(cache.size).toBe(3);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('c')).toBe(30);
    expect(cache.get('e')).toBe(5);
  });

  it('leaves an entry used among the newer half where it is, and moves one of the older half', () => {
    const cache = new BoundedCache<string, number>('test_lru_halves', 4);
    for (const [i, key] of ['a', 'b', 'c', 'd'].entries()) cache.set(key, i);
    expect(cache.get('c')).toBe(2); // among the newer half: stays third
    expect(cache.get('a')).toBe(0); // the oldest: moves to the end, after d
    cache.set('e', 4); // b goes
    cache.set('f', 5); // c goes: it was not moved when used
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('c')).toBeUndefined();
    expect([cache.get('d'), cache.get('a'), cache.get('e'), cache.get('f')]).toEqual([3, 0, 4, 5]);
  });

  it('keeps a hot entry however many entries pass through', () => {
    const cache = new BoundedCache<string, number>('test_lru_hot', 10);
    cache.set('hot', 1);
    for (let i = 0; i < 1000; i += 1) {
      cache.set(`cold-${i}`, i);
      expect(cache.get('hot')).toBe(1);
    }
    expect(cache.size).toBe(10);
  });

  it('never holds more than its bound, whatever the keys', () => {
    const cache = new BoundedCache<number, number>('test_lru_bound', 50);
    for (let i = 0; i < 1000; i += 1) {
      cache.set(i % 120, i);
      if (i % 3 === 0) cache.get((i * 7) % 120);
      expect(cache.size).toBeLessThanOrEqual(50);
    }
    expect(statsOf('test_lru_bound')).toMatchObject({ size: 50, max: 50 });
  });

  it('drops an entry that may no longer be served, and counts hits and misses by name', () => {
    const cache = new BoundedCache<string, { until: number }>('test_lru_usable', 10);
    cache.set('fresh', { until: 200 });
    cache.set('stale', { until: 50 });
    const usable = (v: { until: number }) => v.until > 100;
    expect(cache.get('fresh', usable)).toEqual({ until: 200 });
    expect(cache.get('stale', usable)).toBeUndefined();
    expect(cache.get('stale')).toBeUndefined(); // dropped by the previous lookup
    expect(cache.get('never')).toBeUndefined();
    expect(statsOf('test_lru_usable')).toMatchObject({ size: 1, hits: 1, misses: 3 });
    cache.delete('fresh');
    expect(cache.size).toBe(0);
  });
});
