import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { missingV8Flags, SERVICE_V8_FLAGS } from '../../src/runtime/v8-flags.js';
import { serviceArgs } from '../helpers/process.js';

/** src/runtime/v8-flags.ts: one list of V8 flags, given on the command line of every start of the service. */

const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;

/** The words of a command between its first word and `entry`. */
function flagsBefore(command: string, entry: string): string[] {
  const words = command.trim().split(/\s+/);
  const at = words.indexOf(entry);
  expect(at, command).toBeGreaterThan(0);
  return words.slice(1, at);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe("the service's V8 flags", () => {
  it('are exactly the list on the start script, before the entry point', () => {
    expect(scripts.start!.split(/\s+/)[0]).toBe('node');
    expect(flagsBefore(scripts.start!, 'dist/src/main.js')).toEqual(SERVICE_V8_FLAGS);
  });

  it('are on the development script and on the tests that start the service as a process', () => {
    expect(flagsBefore(scripts.dev!, 'src/main.ts')).toEqual(['watch', ...SERVICE_V8_FLAGS]);
    expect(flagsBefore(['node', ...serviceArgs('build')].join(' '), 'dist/src/main.js')).toEqual(SERVICE_V8_FLAGS);
    expect(flagsBefore(['node', ...serviceArgs('source')].join(' '), 'src/main.ts')).toEqual([
      'node_modules/tsx/dist/cli.mjs',
      ...SERVICE_V8_FLAGS,
    ]);
  });

  it("are accepted by the project's Node.js, and are what the process was started with", () => {
    const run = spawnSync(process.execPath, [...SERVICE_V8_FLAGS, '-e', 'process.stdout.write(JSON.stringify(process.execArgv))'], {
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const execArgv = JSON.parse(run.stdout) as string[];
    expect(missingV8Flags(execArgv)).toEqual([]);
    expect(missingV8Flags([])).toEqual(SERVICE_V8_FLAGS);
    expect(missingV8Flags(['--no-memory-reducer'])).toEqual(['--no-allocation-site-pretenuring']);
  });

  it('are set by no module after start: the only flag set from inside is --expose-gc, for the idle collection', () => {
    const setters = sourceFiles('src').filter((file) => readFileSync(file, 'utf8').includes('setFlagsFromString('));
    expect(setters).toEqual([join('src', 'runtime', 'idle-collection.ts')]);
    const calls = [...readFileSync(setters[0]!, 'utf8').matchAll(/setFlagsFromString\(([^)]*)\)/g)].map((m) => m[1]);
    expect(calls).toEqual(["'--expose-gc'"]);
  });
});
