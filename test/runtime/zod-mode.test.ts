import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire, findPackageJSON } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * How zod runs in the service (src/runtime/zod-mode.ts): every schema built after the service starts
 * loading gets a validator compiled on first use, and recursive schemas parse without zod's
 * reference-cycle support. The MCP SDK validates each message with zod; both cost it less
 * (docs/decisions.md, "Performance"). zod reads both settings when a schema is built, so they must
 * come before any module that builds one; outcomes and error messages for JSON input are zod's own
 * either way (the rest of the suite runs with them, as the service does).
 */

/** The specifiers of a module's static imports, in order. */
function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/^import\s+(?:[^'"]*?\sfrom\s+)?'([^']+)';/gms)].map((m) => m[1]!);
}

/** What `script` writes in a fresh Node.js process (TypeScript through tsx) after importing `modules`; `z` is zod. */
function runAfter(modules: string[], script: string): string {
  const source = `${modules.map((m) => `await import(${JSON.stringify(m)});`).join('')}const z = await import('zod');${script}`;
  return runScript(source);
}

/** What `source` (an ES module, TypeScript through tsx) writes in a fresh Node.js process. */
function runScript(source: string): string {
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return run.stdout;
}

/**
 * Parses, with a recursive schema of JSON values, an object holding a valid nested value and then
 * one that refers to itself; writes the outcome of each.
 */
const PARSE_JSON_AND_CYCLE = `
const Json = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(Json), z.record(z.string(), Json)]));
const nested = { a: [1, 'two', { b: null, c: [true] }] };
const out = [Json.safeParse(nested).success ? 'valid' : 'refused', Json.safeParse({ a: 1 }).success && !Json.safeParse({ a: undefined }).success ? 'checked' : 'unchecked'];
const cyclic = { name: 'loop' };
cyclic.self = cyclic;
try { Json.parse(cyclic); out.push('cycle parsed'); } catch (error) { out.push(error instanceof RangeError ? 'cycle overflowed' : 'cycle refused'); }
process.stdout.write(out.join(', '));`;

describe('zod in the service', () => {
  it('compiles validators once the service is loaded', () => {
    const postProcessor = 'process.stdout.write(typeof z.config().postProcessor);';
    expect(runAfter([], postProcessor)).toBe('undefined');
    expect(runAfter(['./src/app.ts'], postProcessor)).toBe('function');
    expect(runAfter(['./src/runtime/zod-mode.ts'], postProcessor)).toBe('function');
  });

  it('parses JSON values alike without reference-cycle support, which only inputs that are not JSON need', () => {
    // zod's default: a cycle in the input is followed back to the object being built.
    expect(runAfter([], PARSE_JSON_AND_CYCLE)).toBe('valid, checked, cycle parsed');
    // The service's: the same answers for JSON; a cycle, which JSON cannot hold, recurses until the stack runs out.
    expect(runAfter(['./src/app.ts'], PARSE_JSON_AND_CYCLE)).toBe('valid, checked, cycle overflowed');
  });

  it('is set before any module of the service builds a schema', () => {
    // The entry point loads the app first, whose first import sets zod's mode.
    expect(importsOf('src/main.ts')[0]).toBe('./app.js');
    expect(importsOf('src/app.ts')[0]).toBe('./runtime/zod-mode.js');
    expect(importsOf('src/runtime/zod-mode.ts')).toEqual(['zod/compile', 'zod']);
  });
});

describe('the zod the MCP SDK runs', () => {
  const require = createRequire(import.meta.url);
  const server = require.resolve('@modelcontextprotocol/server');
  const core = createRequire(server).resolve('@modelcontextprotocol/core');

  it('is the very package the service configures, for the SDK and the protocol core it builds its schemas with', () => {
    const configured = findPackageJSON('zod', pathToFileURL(resolve('src/runtime/zod-mode.ts')));
    expect(configured).toBe(resolve('node_modules/zod/package.json'));
    expect(findPackageJSON('zod', pathToFileURL(server))).toBe(configured);
    expect(findPackageJSON('zod', pathToFileURL(core))).toBe(configured);
  });

  it("gets the service's settings: its schemas compiled, and parsed without reference-cycle support", () => {
    // The SDK's JSON-RPC message schema, and its recursive schema of JSON values, given a cyclic object.
    const probe = `const { JSONRPCMessageSchema, JSONValueSchema } = await import(${JSON.stringify(pathToFileURL(core).href.replace(/\.cjs$/, '.mjs'))});
const cyclic = { name: 'loop' };
cyclic.self = cyclic;
const out = [typeof JSONRPCMessageSchema._zod.run.__originalRun === 'function' ? 'compiled' : 'interpreted'];
try { JSONValueSchema.parse(cyclic); out.push('cycle parsed'); } catch (error) { out.push(error instanceof RangeError ? 'cycle overflowed' : 'cycle refused'); }
process.stdout.write(out.join(', '));`;
    expect(runScript(probe)).toBe('interpreted, cycle parsed');
    expect(runScript(`await import('./src/runtime/zod-mode.ts');${probe}`)).toBe('compiled, cycle overflowed');
  });
});
