import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The service runs every zod schema built after `import 'zod/compile'` through a validator
 * compiled on first use (src/app.ts): the MCP SDK validates each message with zod, and the compiled
 * validators cost less (docs/decisions.md, "Performance"). zod compiles only schemas built after
 * that import, so it must come before any module that builds one; outcomes and error messages are
 * zod's own either way (the rest of the suite runs with it on, as the service does).
 */

/** The specifiers of a module's static imports, in order. */
function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/^import\s+(?:[^'"]*?\sfrom\s+)?'([^']+)';/gms)].map((m) => m[1]!);
}

/** What `z.config().postProcessor` is in a fresh Node.js process after importing `modules` (TypeScript through tsx). */
function postProcessorAfter(modules: string[]): string {
  const script = `${modules.map((m) => `await import(${JSON.stringify(m)});`).join('')}const z = await import('zod');process.stdout.write(typeof z.config().postProcessor);`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return run.stdout;
}

describe("zod's compiled validators", () => {
  it('are switched on by loading the service', () => {
    expect(postProcessorAfter([])).toBe('undefined');
    expect(postProcessorAfter(['./src/app.ts'])).toBe('function');
  });

  it('are switched on before any module of the service builds a schema', () => {
    // The entry point loads the V8 settings (node: modules only), then the app, whose first import is zod/compile.
    expect(importsOf('src/main.ts').slice(0, 2)).toEqual(['./v8-flags.js', './app.js']);
    expect(importsOf('src/v8-flags.ts').every((m) => m.startsWith('node:'))).toBe(true);
    expect(importsOf('src/app.ts')[0]).toBe('zod/compile');
  });
});
