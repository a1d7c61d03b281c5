import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * src/runtime/idle-collection.ts gives memory back to the system, not only to the heap: the
 * resident size of a process of its own after a collection (test/runtime/idle-collection.test.ts
 * has when it collects and what it frees).
 */
describe('idle collection', () => {
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
