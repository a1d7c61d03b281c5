import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Incoming } from '../../src/http/incoming.js';
import { createNodeServer } from '../../src/http/node.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/process.js';

/** Helpers of the command line's tests: the built `wfctl` run as a process against a listening service. */

const CLI_DIR = resolve('cli');
const CLI = join(CLI_DIR, 'dist', 'wfctl.js');

/** `node cli/build.mjs`: the bundle the package ships. */
export function buildCli(): void {
  const result = spawnSync(process.execPath, ['build.mjs'], { cwd: CLI_DIR, encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) throw new Error(`the command line's build failed:\n${result.stdout}\n${result.stderr}`);
}

export interface RunningService {
  t: TestApp;
  origin: string;
  close(): Promise<void>;
}

/**
 * The service on a loopback port (PGlite, or PostgreSQL when DATABASE_URL is set), as wfctl reaches it.
 * `beforeRequest` runs before each request is handled (a test makes another client's change there).
 */
export async function startService(
  env: Record<string, string> = {},
  options: { beforeRequest?: (request: Incoming) => Promise<void> } = {},
): Promise<RunningService> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ env: { PUBLIC_BASE_URL: `${origin}/v1`, ...env } });
  const server: Server = createNodeServer(async (request, connection) => {
    await options.beforeRequest?.(request);
    return t.app.handle(request, connection);
  });
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  return {
    t,
    origin,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      await t.close();
    },
  };
}

/** A home of its own for each test's command line: configuration, credentials and agents' files land there. */
export function tempHome(): { home: string; env: Record<string, string>; remove(): void } {
  const home = mkdtempSync(join(tmpdir(), 'wfctl-home-'));
  return {
    home,
    env: {
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      // No keychain in the test machine's sandbox: the file store, whose mode is checked.
      WFCTL_CREDENTIAL_STORE: 'file',
    },
    remove: () => rmSync(home, { recursive: true, force: true }),
  };
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (commands run with --json). */
  json: any;
}

function baseEnv(env: Record<string, string>): Record<string, string> {
  // A bare environment: nothing of the machine's own configuration or credentials reaches the command.
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...env };
}

/** Runs the built command line to its end (bounded in time). */
export function runCli(args: string[], options: { env: Record<string, string>; cwd?: string; timeoutMs?: number }): Promise<CliRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: baseEnv(options.env),
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`wfctl ${args.join(' ')} did not finish in time:\n${stdout}\n${stderr}`));
    }, options.timeoutMs ?? 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, json: jsonOf(stdout) });
    });
  });
}

/** What the command printed, read as JSON (undefined when it printed nothing or not JSON). */
function jsonOf(stdout: string): unknown {
  try {
    return stdout ? JSON.parse(stdout) : undefined;
  } catch {
    return undefined;
  }
}

/** Starts the built command line and hands back the process (for sign-ins that wait on a browser). */
export function startCli(
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; stderr: () => string; result: Promise<CliRun> } {
  const child = spawn(process.execPath, [CLI, ...args], { env: baseEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const result = new Promise<CliRun>((done) =>
    child.on('exit', (code) => {
      done({ code, stdout, stderr, json: jsonOf(stdout) });
    }),
  );
  // stdout too: a failure in --json mode is written there, and shows in the wait's message.
  return { child, stderr: () => `${stderr}${stdout}`, result };
}

/** Waits (bounded) until the text matches. */
export async function waitFor(read: () => string, pattern: RegExp, timeoutMs = 20_000): Promise<RegExpExecArray> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const match = pattern.exec(read());
    if (match) return match;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no ${pattern} in time:\n${read()}`);
}
