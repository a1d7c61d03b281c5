import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './process.js';

/**
 * A throw-away PostgreSQL server owned by one test file, so a test may stop and restart it
 * without touching the machine's own server. It runs as the `postgres` OS user because initdb
 * refuses root, listens on loopback only, trusts local connections, and lives in a temp dir
 * removed by `destroy()`.
 */

const run = promisify(execFile);
const BASE = '/usr/lib/postgresql';

/** The bin directory of the newest installed PostgreSQL, or null when none is installed. */
function findPostgresBin(): string | null {
  if (!existsSync(BASE)) return null;
  const versions = readdirSync(BASE)
    .filter((v) => existsSync(join(BASE, v, 'bin', 'initdb')) && existsSync(join(BASE, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(BASE, versions[0]!, 'bin') : null;
}

/** Why the own-server tests cannot run here, or null when they can. */
export function ownPostgresUnavailable(): string | null {
  if (!findPostgresBin()) return `no PostgreSQL binaries under ${BASE}/<version>/bin`;
  if (process.getuid?.() !== 0) return 'starting a private PostgreSQL needs root (to run initdb as the postgres user)';
  return null;
}

export interface OwnPostgres {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** A fast restart: every connection is cut and the server is back at once. */
  restart(): Promise<void>;
  /**
   * A crash: the server is killed without a clean shutdown (immediate mode: no goodbye to the
   * clients, recovery at the next start), down for `downMs`, then started again.
   */
  crash(downMs: number): Promise<void>;
  /**
   * Freezes every process of the server (SIGSTOP), as a network partition looks to a client:
   * connections stay open and nothing answers. Returns the thaw; destroy() thaws too.
   */
  freeze(): Promise<() => void>;
  /** Stops the server (if running) and deletes its files; safe to call twice. */
  destroy(): Promise<void>;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = findPostgresBin();
  if (!bin) throw new Error('no PostgreSQL binaries');
  const dir = mkdtempSync(join(tmpdir(), 'wf-own-pg-'));
  chownSync(dir, Number((await run('id', ['-u', 'postgres'])).stdout.trim()), Number((await run('id', ['-g', 'postgres'])).stdout.trim()));
  const data = join(dir, 'data');
  const port = await freePort();
  const asPostgres = (cmd: string, args: string[]) =>
    run('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args], { timeout: 60_000 });
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  let destroyed = false;
  // The pid file, not what we last asked for: a start that timed out may still have started it.
  const running = () => existsSync(join(data, 'postmaster.pid'));

  async function start(): Promise<void> {
    await asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '30', 'start']);
  }
  async function stop(): Promise<void> {
    await asPostgres('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']);
  }

  let frozen: number[] = [];
  const thaw = () => {
    for (const pid of frozen) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // Exited meanwhile.
      }
    }
    frozen = [];
  };

  // A test run cut short (a failed hook, the worker exiting) must not leave a server behind.
  const onExit = () => {
    thaw();
    if (running()) {
      try {
        execFileSync('runuser', ['-u', 'postgres', '--', join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', '-w', '-t', '10', 'stop'], {
          stdio: 'ignore',
          timeout: 15_000,
        });
      } catch {
        // Already gone.
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  try {
    await asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    await start();
  } catch (error) {
    process.removeListener('exit', onExit);
    onExit();
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    async restart() {
      await asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-m', 'fast', '-w', '-t', '30', 'restart']);
    },
    async crash(downMs: number) {
      await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop']);
      await new Promise((r) => setTimeout(r, downMs));
      await start();
    },
    async freeze() {
      const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const children = (await run('pgrep', ['-P', String(postmaster)]).catch(() => ({ stdout: '' }))).stdout
        .split('\n')
        .filter(Boolean)
        .map(Number);
      // Children first, so the postmaster never sees one of them stop answering on its own.
      for (const pid of [...children, postmaster]) {
        process.kill(pid, 'SIGSTOP');
        frozen.push(pid);
      }
      return thaw;
    },
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      thaw();
      process.removeListener('exit', onExit);
      try {
        if (running()) await stop().catch(() => asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop']));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
