import { afterEach, describe, expect, it, vi } from 'vitest';
import { fullCollector, startIdleCollection } from '../../src/idle-collection.js';

/** src/idle-collection.ts: memory given back once the process goes idle after load. */
describe('idle collection', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('collects once on the first idle window after a busy one, never while busy, never twice while idle', () => {
    vi.useFakeTimers();
    let cpu = 0;
    const collect = vi.fn();
    const onCollect = vi.fn();
    const collection = startIdleCollection({ intervalMs: 1000, busyShare: 0.1, idleShare: 0.01, cpuMicros: () => cpu, collect, onCollect });
    const windowOf = (cpuMs: number) => {
      cpu += cpuMs * 1000;
      vi.advanceTimersByTime(1000);
    };
    windowOf(0); // idle from the start: nothing to give back
    expect(collect).not.toHaveBeenCalled();
    windowOf(500); // busy
    windowOf(300); // still busy
    expect(collect).not.toHaveBeenCalled();
    windowOf(50); // in between: neither busy nor idle
    expect(collect).not.toHaveBeenCalled();
    windowOf(5); // idle
    expect(collect).toHaveBeenCalledTimes(1);
    expect(onCollect).toHaveBeenCalledTimes(1);
    windowOf(0);
    windowOf(0);
    expect(collect).toHaveBeenCalledTimes(1);
    windowOf(200); // busy again, then idle: one more
    windowOf(0);
    expect(collect).toHaveBeenCalledTimes(2);
    collection.stop();
    windowOf(900);
    windowOf(0);
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it("V8's full collection frees garbage that no young collection would have reached", () => {
    const collect = fullCollector();
    // Garbage that has lived long enough to be promoted, as a burst of requests leaves it.
    let junk: unknown[] | null = Array.from({ length: 200_000 }, (_, i) => ({ i, text: `row ${i}` }));
    collect();
    const before = process.memoryUsage().heapUsed;
    junk = null;
    collect();
    const after = process.memoryUsage().heapUsed;
    expect(junk).toBeNull();
    expect(before - after).toBeGreaterThan(5 * 2 ** 20);
    // The service's own context does not get a global `gc`.
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });
});
