import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVICE_NODE_FLAGS } from '../src/node-flags.js';

describe("the service's Node.js flags", () => {
  it('are on the start script, before the entry point', () => {
    const start = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts.start!;
    const words = start.split(/\s+/);
    expect(words[0]).toBe('node');
    const entry = words.indexOf('dist/src/main.js');
    expect(entry).toBeGreaterThan(0);
    for (const flag of SERVICE_NODE_FLAGS) expect(words.slice(1, entry), flag).toContain(flag);
  });

  it("are accepted by the project's Node.js", () => {
    const run = spawnSync(process.execPath, [...SERVICE_NODE_FLAGS, '-e', 'process.stdout.write("started")'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('started');
    expect(run.status).toBe(0);
  });
});
