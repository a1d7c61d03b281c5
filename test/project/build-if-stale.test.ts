import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `npm start`'s first step (scripts/build-if-stale.mjs) says what it is doing before a build that
 * takes a minute or two, and that it happens once. Run in a directory of its own, with an `npm`
 * that only makes dist/ (as the build does), so no real build runs.
 */
describe('npm start’s build step', () => {
  const dir = mkdtempSync(join(tmpdir(), 'build-if-stale-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'npm'), '#!/bin/sh\nmkdir -p dist\n');
  chmodSync(join(bin, 'npm'), 0o755);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const start = () =>
    spawnSync(process.execPath, [resolve('scripts/build-if-stale.mjs')], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 30_000,
      env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` },
    });

  it('announces the first build, skips a current one, and names a rebuild after a change', () => {
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'main.ts'), '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(dir, 'src', 'main.ts'), old, old);
    utimesSync(join(dir, 'src'), old, old);

    const first = start();
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^First start: building the service and the dashboard \(a minute or two, once;/);

    // What a build leaves: the stamp is newer than every source.
    mkdirSync(join(dir, 'dist', 'src'), { recursive: true });
    mkdirSync(join(dir, 'dist', 'web', '.vite'), { recursive: true });
    writeFileSync(join(dir, 'dist', 'src', 'main.js'), '');
    writeFileSync(join(dir, 'dist', 'web', '.vite', 'manifest.json'), '{}');
    const current = start();
    expect(current.stdout).toContain('The build is current: skipping it');

    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, 'src', 'main.ts'), later, later);
    const changed = start();
    expect(changed.stdout).toMatch(/^Sources changed since the last build: building the service and the dashboard again/);
  });
});
