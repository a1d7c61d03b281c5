import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { SERVICE_V8_FLAGS } from '../../src/runtime/v8-flags.js';

/** Processes a test starts of its own (the built service, a real OpenID provider, PostgreSQL) and the ports they listen on. */

/**
 * The arguments that start the service as its own process, with its V8 flags as `npm start` gives
 * them: the TypeScript sources through tsx, or the build (`dist/`).
 */
export function serviceArgs(from: 'source' | 'build'): string[] {
  return from === 'source'
    ? ['node_modules/tsx/dist/cli.mjs', ...SERVICE_V8_FLAGS, 'src/main.ts']
    : [...SERVICE_V8_FLAGS, 'dist/src/main.js'];
}

/** A loopback port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts a node script and waits for its ready line (up to 2 minutes: a busy shared machine starts slowly). */
export function startProcess(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray; output: () => string }> {
  const { NODE_ENV: _testEnv, ...inherited } = process.env;
  const child = spawn(process.execPath, args, { env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no ready line in time:\n${out}`));
    }, 120_000);
    const check = () => {
      const match = ready.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match, output: () => out });
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before it was ready:\n${out}`));
    });
  });
}

/** Stops a child with SIGTERM, and SIGKILL if it has not exited after 10 s. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
