import { afterEach, describe, expect, it, vi } from 'vitest';
import { fullCollector, startIdleCollection } from '../../src/runtime/idle-collection.js';

/** src/runtime/idle-collection.ts: memory given back once the process goes idle after load. */
describe('idle collection', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('collects once after three quiet windows in a row following a busy one, never while busy, never twice while idle', async () => {
    vi.useFakeTimers();
    let cpu = 0;
    const collect = vi.fn();
    const onCollect = vi.fn();
    const collection = startIdleCollection({
      intervalMs: 1000,
      busyShare: 0.1,
      idleShare: 0.01,
      quietWindows: 3,
      cpuMicros: () => cpu,
      collect,
      onCollect,
    });
    const windowOf = async (cpuMs: number) => {
      cpu += cpuMs * 1000;
      await vi.advanceTimersByTimeAsync(1000);
    };
    for (let i = 0; i < 4; i++) await windowOf(0); // idle from the start: nothing to give back
    expect(collect).not.toHaveBeenCalled();
    await windowOf(500); // busy
    await windowOf(300); // still busy
    await windowOf(5); // quiet, twice: a pause, not yet quiet enough
    await windowOf(5);
    expect(collect).not.toHaveBeenCalled();
    await windowOf(400); // the next burst
    await windowOf(50); // in between: neither busy nor idle, and it breaks the row
    await windowOf(5);
    await windowOf(5);
    expect(collect).not.toHaveBeenCalled();
    await windowOf(5); // the third quiet window in a row
    expect(collect).toHaveBeenCalledTimes(1);
    expect(onCollect).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 5; i++) await windowOf(0);
    expect(collect).toHaveBeenCalledTimes(1);
    await windowOf(200); // busy again, then quiet: one more
    for (let i = 0; i < 3; i++) await windowOf(0);
    expect(collect).toHaveBeenCalledTimes(2);
    collection.stop();
    await windowOf(900);
    for (let i = 0; i < 3; i++) await windowOf(0);
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it("V8's full collection frees garbage that no young collection would have reached", async () => {
    const collect = fullCollector();
    // Garbage that has lived long enough to be promoted, as a burst of requests leaves it.
    let junk: unknown[] | null = Array.from({ length: 200_000 }, (_, i) => ({ i, text: `row ${i}` }));
    await collect();
    const before = process.memoryUsage().heapUsed;
    junk = null;
    await collect();
    const after = process.memoryUsage().heapUsed;
    expect(junk).toBeNull();
    expect(before - after).toBeGreaterThan(5 * 2 ** 20);
    // The service's own context does not get a global `gc`.
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });
});
