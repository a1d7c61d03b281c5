import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify, stripVTControlCharacters } from 'node:util';

/**
 * The real agent CLIs (agent-clients/, a package of its own) run as a user runs them, but each in a
 * home of its own: a temporary HOME with its XDG directories and CODEX_HOME, a bare environment (no
 * variable of the machine leaks in), every documented switch of non-essential traffic turned off,
 * and bounded time.
 */

const AGENT_CLIENTS_DIR = resolve(import.meta.dirname, '../../agent-clients');
const BIN = join(AGENT_CLIENTS_DIR, 'node_modules/.bin');
const INSTALL_COMMAND = 'npm ci --prefix agent-clients --no-audit --no-fund';

export type AgentCli = 'claude' | 'gemini' | 'codex' | 'skills';
const PACKAGES: Record<AgentCli, string> = {
  claude: '@anthropic-ai/claude-code',
  gemini: '@google/gemini-cli',
  codex: '@openai/codex',
  skills: 'skills',
};

/** The version agent-clients/package.json pins for each CLI. */
function pinnedVersions(): Record<string, string> {
  return JSON.parse(readFileSync(join(AGENT_CLIENTS_DIR, 'package.json'), 'utf8')).dependencies;
}

function installedVersion(name: string): string | null {
  try {
    return JSON.parse(readFileSync(join(AGENT_CLIENTS_DIR, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

function installed(): boolean {
  const pinned = pinnedVersions();
  return (Object.keys(PACKAGES) as AgentCli[]).every(
    (cli) => existsSync(join(BIN, cli)) && installedVersion(PACKAGES[cli]) === pinned[PACKAGES[cli]],
  );
}

/**
 * Installs agent-clients/ from its lock file when the pinned CLIs are not there (CI installs them
 * first; a developer's first `npm test` does it here). Test files run in parallel: one installs,
 * the others wait for it (a lock file, bounded in time).
 */
export async function ensureAgentClients(): Promise<void> {
  if (installed()) return;
  const lock = join(AGENT_CLIENTS_DIR, '.installing');
  const deadline = Date.now() + 600_000;
  let fd: number | null = null;
  while (fd === null) {
    try {
      fd = openSync(lock, 'wx');
    } catch {
      // Another test file is installing: wait for it, then look again. A lock older than the
      // longest install was left by a killed run.
      if (Date.now() > deadline) throw new Error(`timed out waiting for another install of agent-clients/ (${lock})`);
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && Date.now() - since > 600_000) rmSync(lock, { force: true });
      await sleep(1000);
      if (installed()) return;
    }
  }
  try {
    if (installed()) return;
    // The project's own Node (npm's node package) runs npm, as in .ci/run.
    await promisify(execFile)('npm', ['ci', '--prefix', AGENT_CLIENTS_DIR, '--no-audit', '--no-fund'], {
      cwd: AGENT_CLIENTS_DIR,
      timeout: 600_000,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
    }).catch((error: Error & { stdout?: string; stderr?: string }) => {
      throw new Error(
        `the agent tests drive the real CLIs pinned in agent-clients/, and installing them failed; run \`${INSTALL_COMMAND}\` (it needs the npm registry): ${error.message}\n${error.stdout}\n${error.stderr}`,
      );
    });
    if (!installed()) throw new Error(`agent-clients/ was installed but the pinned CLIs are not all there; run \`${INSTALL_COMMAND}\``);
  } finally {
    closeSync(fd);
    rmSync(lock, { force: true });
  }
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr as they came, with the terminal's escape sequences removed. */
  output: string;
}

/** A terminal's output as text: escape sequences (colours, cursor moves, OSC 8 hyperlinks) and carriage returns removed. */
function plainText(terminal: string): string {
  return stripVTControlCharacters(terminal).replace(/\r/g, '');
}

/** How a string is written inside single quotes of a POSIX shell. */
function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

export interface AgentHomeOptions {
  /** HTTPS_PROXY / HTTP_PROXY for every CLI (the egress guard or the name-mapping proxy). */
  proxy?: string;
  /** PEM file of a test CA the CLIs trust (NODE_EXTRA_CA_CERTS, CODEX_CA_CERTIFICATE, SSL_CERT_FILE). */
  caFile?: string;
}

/** What `codex app-server` answers for one MCP server in `mcpServerStatus/list` (the fields the tests read). */
export interface CodexMcpServerStatus {
  name: string;
  authStatus: string;
  /** The origin of the configured endpoint. */
  httpOrigin: string | null;
  serverInfo: { name: string; version: string; title?: string | null } | null;
  tools: Record<string, { name: string; title?: string; description?: string }>;
  toolsError: string | null;
}

/** A terminal program started under script(1), read while it runs. */
export interface TerminalRun {
  /** Everything printed so far, as plain text. */
  text(): string;
  /** Resolves with the first match of `pattern` in the plain text, or rejects after `timeoutMs` or when the program exits first. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  /** Resolves when the program has exited (killed after `timeoutMs`). */
  exited(timeoutMs: number): Promise<number | null>;
  stop(): Promise<void>;
}

/**
 * One user's machine for the CLIs: a temporary HOME (and XDG directories, CODEX_HOME, TMPDIR), a
 * working folder, and the bare environment the CLIs run in.
 */
export class AgentHome {
  readonly root: string;
  readonly home: string;
  /** The folder the CLIs run in (a project folder of the user's). */
  readonly work: string;
  private readonly env: Record<string, string>;
  private readonly children = new Set<ChildProcess>();

  constructor(options: AgentHomeOptions = {}) {
    this.root = mkdtempSync(join(tmpdir(), 'wf-agent-'));
    this.home = join(this.root, 'home');
    this.work = join(this.root, 'project');
    const dirs = {
      HOME: this.home,
      XDG_CONFIG_HOME: join(this.home, '.config'),
      XDG_DATA_HOME: join(this.home, '.local/share'),
      XDG_CACHE_HOME: join(this.home, '.cache'),
      XDG_STATE_HOME: join(this.home, '.local/state'),
      CODEX_HOME: join(this.home, '.codex'),
      TMPDIR: join(this.root, 'tmp'),
    };
    for (const dir of [...Object.values(dirs), this.work]) mkdirSync(dir, { recursive: true });
    this.env = {
      ...dirs,
      // The project's Node (the CLIs need 22 or later), then the system's tools (script, git, openssl).
      PATH: `${BIN}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      LANG: 'C.UTF-8',
      TERM: 'dumb',
      NO_COLOR: '1',
      // Claude Code: no telemetry, error reports, auto-update or other non-essential traffic.
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
      // Gemini CLI: no telemetry (usage statistics and auto-update are settings: see writeGeminiSettings).
      GEMINI_TELEMETRY_ENABLED: 'false',
      // skills: no telemetry and no audit look-up (both honour DISABLE_TELEMETRY and DO_NOT_TRACK).
      DO_NOT_TRACK: '1',
    };
    if (options.proxy) {
      // Every CLI's own traffic goes through the test's proxy, which refuses anything but loopback and the test's names.
      Object.assign(this.env, {
        HTTPS_PROXY: options.proxy,
        HTTP_PROXY: options.proxy,
        https_proxy: options.proxy,
        http_proxy: options.proxy,
        // Node's own fetch reads the proxy variables only when asked (Node 24).
        NODE_USE_ENV_PROXY: '1',
      });
    }
    if (options.caFile)
      Object.assign(this.env, { NODE_EXTRA_CA_CERTS: options.caFile, CODEX_CA_CERTIFICATE: options.caFile, SSL_CERT_FILE: options.caFile });
    // What the user's configuration says about traffic that only settings switch off.
    mkdirSync(join(this.home, '.gemini'));
    writeFileSync(
      join(this.home, '.gemini/settings.json'),
      JSON.stringify({
        privacy: { usageStatisticsEnabled: false },
        general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      }),
    );
    writeFileSync(
      join(dirs.CODEX_HOME, 'config.toml'),
      'check_for_update_on_startup = false\n\n[analytics]\nenabled = false\n\n[features]\nplugins = false\n',
    );
  }

  /** The environment a CLI runs in, with `extra` added. */
  environment(extra: Record<string, string> = {}): Record<string, string> {
    return { ...this.env, ...extra };
  }

  /** Runs a CLI of agent-clients/ to its end, killed after `timeoutMs`. */
  run(
    cli: AgentCli | string,
    args: string[],
    options: { timeoutMs?: number; env?: Record<string, string>; input?: string; cwd?: string } = {},
  ): Promise<RunResult> {
    const child = spawn(join(BIN, cli), args, {
      cwd: options.cwd ?? this.work,
      env: this.environment(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    return this.collect(child, options.timeoutMs ?? 60_000, options.input, `${cli} ${args.join(' ')}`);
  }

  /**
   * Runs commands as a person pastes them into a POSIX shell (`sh -ec`, one line each, stopping at
   * the first that fails), with agent-clients/' CLIs first on PATH: for the commands the install
   * data gives, taken as they are.
   */
  runPasted(lines: string[], options: { timeoutMs?: number; env?: Record<string, string> } = {}): Promise<RunResult> {
    const child = spawn('/bin/sh', ['-ec', lines.join('\n')], {
      cwd: this.work,
      env: this.environment(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    return this.collect(child, options.timeoutMs ?? 60_000, undefined, lines.join('; '));
  }

  /**
   * Runs a command line of agent-clients/' CLIs under a pseudo-terminal (`script -qfc "…" /dev/null`),
   * as a person at a terminal runs it: for the commands that refuse to run without one.
   */
  runInTerminal(command: string[], options: { env?: Record<string, string>; cwd?: string } = {}): TerminalRun {
    const line = command.map(shellQuote).join(' ');
    const child = spawn('script', ['-qfc', line, '/dev/null'], {
      cwd: options.cwd ?? this.work,
      env: this.environment({ TERM: 'xterm-256color', COLUMNS: '400', LINES: '50', ...options.env }),
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    this.children.add(child);
    let raw = '';
    const waiters = new Set<() => void>();
    const onData = (chunk: Buffer) => {
      raw += chunk.toString('utf8');
      for (const wake of waiters) wake();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    const exit = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    child.once('exit', () => {
      this.children.delete(child);
      for (const wake of waiters) wake();
    });
    const text = () => plainText(raw);
    return {
      text,
      waitFor: (pattern, timeoutMs) =>
        new Promise((resolveMatch, reject) => {
          const check = () => {
            const match = pattern.exec(text());
            if (match) finish(() => resolveMatch(match));
            else if (child.exitCode !== null || child.signalCode !== null)
              finish(() =>
                reject(
                  new Error(`${command.join(' ')} exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}:\n${text()}`),
                ),
              );
          };
          const timer = setTimeout(
            () => finish(() => reject(new Error(`${command.join(' ')} did not print ${pattern} within ${timeoutMs} ms:\n${text()}`))),
            timeoutMs,
          );
          const finish = (settle: () => void) => {
            clearTimeout(timer);
            waiters.delete(check);
            settle();
          };
          waiters.add(check);
          check();
        }),
      exited: async (timeoutMs) => {
        const timer = setTimeout(() => killGroup(child), timeoutMs);
        const code = await exit;
        clearTimeout(timer);
        return code;
      },
      stop: async () => {
        if (child.exitCode === null && child.signalCode === null) {
          killGroup(child);
          await exit;
        }
      },
    };
  }

  /**
   * Asks Codex for the state of its MCP servers the way its IDE extensions do: `codex app-server`
   * (JSON-RPC, one message a line on stdio), `initialize`, then `mcpServerStatus/list`, which
   * connects to each server and answers its info and tools, or the error.
   */
  async codexMcpServerStatus(options: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<CodexMcpServerStatus[]> {
    const timeoutMs = options.timeoutMs ?? 60_000;
    const child = spawn(join(BIN, 'codex'), ['app-server'], {
      cwd: this.work,
      env: this.environment(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    this.children.add(child);
    const exited = new Promise((done) => child.once('exit', done));
    child.once('exit', () => this.children.delete(child));
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d));
    const answers = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let message: { id?: number; result?: unknown; error?: unknown };
      try {
        message = JSON.parse(line);
      } catch {
        return;
      }
      if (typeof message.id === 'number') answers.get(message.id)?.(message);
    });
    const call = (id: number, method: string, params: unknown) =>
      new Promise<unknown>((resolveCall, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`codex app-server: no answer to ${method} within ${timeoutMs} ms\n${plainText(stderr)}`)),
          timeoutMs,
        );
        answers.set(id, (message) => {
          clearTimeout(timer);
          if (message.error) reject(new Error(`codex app-server: ${method} failed: ${JSON.stringify(message.error)}`));
          else resolveCall(message.result);
        });
        child.stdin!.write(`${JSON.stringify({ id, method, params })}\n`);
      });
    try {
      await call(1, 'initialize', { clientInfo: { name: 'workflow-service-tests', version: '1.0.0' } });
      child.stdin!.write(`${JSON.stringify({ method: 'initialized' })}\n`);
      const result = (await call(2, 'mcpServerStatus/list', {})) as { data: CodexMcpServerStatus[] };
      return result.data;
    } finally {
      child.stdin!.end();
      killGroup(child);
      await exited;
    }
  }

  private collect(child: ChildProcess, timeoutMs: number, input: string | undefined, label: string): Promise<RunResult> {
    this.children.add(child);
    let stdout = '';
    let stderr = '';
    let output = '';
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d;
      output += d;
    });
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d;
      output += d;
    });
    child.stdin!.end(input ?? '');
    return new Promise((resolveRun, reject) => {
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup(child);
      }, timeoutMs);
      child.once('error', (error) => {
        clearTimeout(timer);
        this.children.delete(child);
        reject(error);
      });
      child.once('close', (code) => {
        clearTimeout(timer);
        this.children.delete(child);
        if (timedOut) reject(new Error(`${label} did not finish within ${timeoutMs} ms:\n${plainText(output)}`));
        else resolveRun({ code, stdout, stderr, output: plainText(output) });
      });
    });
  }

  /** Ends what is still running and removes the home. */
  async close(): Promise<void> {
    await Promise.all(
      [...this.children].map(async (child) => {
        const exit = new Promise((done) => child.once('exit', done));
        killGroup(child);
        await exit;
      }),
    );
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** Kills a child started with `detached: true` and everything it started (its process group). */
function killGroup(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}
