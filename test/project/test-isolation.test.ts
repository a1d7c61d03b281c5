import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OWN_MODULE_GRAPH } from '../../vitest.config.js';

/**
 * Test files share their worker's modules (vitest.config.ts), which a `vi.mock` would leak into
 * the files after it: every file that mocks a module is on the list that gets a module graph of its
 * own, and the list names no file that does not.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('test isolation', () => {
  it('gives every file that mocks a module its own module graph, and only those', () => {
    const mocking = testFiles(join(ROOT, 'test'))
      .filter((file) => /\bvi\.(do)?mock\(/.test(readFileSync(file, 'utf8')) && !file.endsWith('test-isolation.test.ts'))
      .map((file) => relative(ROOT, file).split('\\').join('/'))
      .sort();
    expect(mocking).toEqual([...OWN_MODULE_GRAPH].sort());
  });
});
