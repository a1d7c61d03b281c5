import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
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

  it('gives the emptied pages back to the system, not only to the heap', () => {
    // In a process of its own, so the figures are its alone: grow the heap to ~200 MB, drop it, collect.
    const dir = mkdtempSync(join(tmpdir(), 'wf-idle-'));
    const script = join(dir, 'probe.mts');
    writeFileSync(
      script,
      `import { fullCollector } from ${JSON.stringify(resolve('src/runtime/idle-collection.ts'))};
const collect = fullCollector();
const fill = () => {
  const rows: unknown[] = [];
  for (let i = 0; i < 1_500_000; i++) rows.push({ i, text: 'row ' + i, more: [i, i + 1] });
  (globalThis as { rows?: unknown }).rows = rows;
};
fill();
const grown = process.memoryUsage().rss;
(globalThis as { rows?: unknown }).rows = null;
await collect();
// The pages go back as V8 frees them, within a few seconds of the collection.
let after = process.memoryUsage().rss;
for (let i = 0; i < 50 && grown - after < 100 * 2 ** 20; i++) {
  await new Promise((r) => setTimeout(r, 100));
  after = process.memoryUsage().rss;
}
console.log(JSON.stringify({ grown, after }));`,
    );
    try {
      const out = execFileSync(process.execPath, [resolve('node_modules/tsx/dist/cli.mjs'), script], { encoding: 'utf8', timeout: 60_000 });
      const { grown, after } = JSON.parse(out.trim().split('\n').at(-1)!) as { grown: number; after: number };
      expect(grown).toBeGreaterThan(150 * 2 ** 20);
      // Within 5 s: a regular full collection shrinks the heap but may leave its pages resident for good.
      expect(grown - after).toBeGreaterThan(100 * 2 ** 20);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
