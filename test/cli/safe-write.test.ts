import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * How the command line writes a file (credentials, agent configurations, pulled manifests): the
 * temporary name is predictable here (the random source is fixed) so that a planted symlink can be
 * put exactly where the write would go, as a local attacker who guessed it would.
 */
vi.mock('node:crypto', async (original) => ({
  ...(await original<typeof import('node:crypto')>()),
  randomBytes: (size: number) => Buffer.alloc(size, 0xab),
}));

const { writeFileSafely } = await import('../../cli/src/safe-write.js');

describe('writeFileSafely', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'safe-write-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('makes a file that may hold a key 0600, whatever mode it had', () => {
    const path = join(dir, 'config.json');
    writeFileSync(path, '{}', { mode: 0o644 });
    writeFileSafely(path, '{"key":"wfk_x"}', { private: true });
    expect(readFileSync(path, 'utf8')).toBe('{"key":"wfk_x"}');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('never follows a symlink planted at the temporary name: the write fails and the link target is untouched', () => {
    const path = join(dir, 'config.json');
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious');
    symlinkSync(victim, join(dir, `.config.json.${'ab'.repeat(8)}.tmp`));
    expect(() => writeFileSafely(path, 'attacker-chosen', { private: true })).toThrow(/EEXIST/);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(existsSync(path)).toBe(false);
  });

  it('writes through a symlinked target to the file it names, keeping the link', () => {
    const real = join(dir, 'real.json');
    writeFileSync(real, 'old');
    const link = join(dir, 'link.json');
    symlinkSync(real, link);
    writeFileSafely(link, 'new', { private: false });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toBe('new');
  });
});
