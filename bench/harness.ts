/**
 * The moving parts shared by `npm run bench` and its profiling mode: child processes for the
 * service and the baseline, readiness, resident memory, load runs and answer comparison.
 */
import { randomBytes } from 'node:crypto';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { loadOrCreateDevIssuerKey } from '../src/auth/dev-issuer.js';
import {
  initializeBody,
  loadWorkload,
  MCP_CLIENTS,
  mcpHeaders,
  toolsListBody,
  type BenchRequest,
  type McpTarget,
  type Scenario,
  type Workload,
} from './scenarios.js';
import { dropBenchDatabase, prepareBenchDatabase, type BenchSize, type PreparedDatabase } from './seed.js';

export const ROOT = resolve(import.meta.dirname, '..');

/** The project's pinned Node (the `node` dev dependency), as the issue asks; this one otherwise. */
function nodeBinary(): string {
  const pinned = resolve(ROOT, 'node_modules/.bin/node');
  return existsSync(pinned) ? pinned : process.execPath;
}

export function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Compiles the service as `npm run build` does; the benchmark runs dist/, as production would. */
export function buildService(): void {
  const started = performance.now();
  const result = spawnSync(nodeBinary(), [resolve(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: 'inherit',
    timeout: 300_000,
  });
  if (result.status !== 0)
    throw new Error(
      `the service did not build (tsc -p tsconfig.build.json exited with ${result.status ?? result.signal}); fix the build or pass --no-build to use the existing dist/`,
    );
  log(`built the service in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * The Node.js flags a checkout starts its service with: the words of its `npm start` between
 * `node` and the entry point (src/runtime/v8-flags.ts). A build compared with another runs with
 * its own.
 */
export function startFlags(dir = ROOT): string[] {
  const start = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts?: { start?: string } }).scripts?.start ?? '';
  const words = start.trim().split(/\s+/);
  const entry = words.indexOf('dist/src/main.js');
  if (words[0] !== 'node' || entry < 0) throw new Error(`${dir}: npm start is not "node [flags] dist/src/main.js": ${start}`);
  return words.slice(1, entry);
}

/** A figure for the printed tables and lines: fixed digits, a dash for none. */
export const fmt = (n: number | null | undefined, digits = 1) =>
  n === null || n === undefined || Number.isNaN(n) ? '—' : n.toFixed(digits);

/** A time for a results file's name: ISO 8601 without colons or fractions. */
export const stamp = (d: Date) =>
  d
    .toISOString()
    .replace(/:/g, '-')
    .replace(/\.\d+Z$/, 'Z');

/** Writes `document` as bench/results/<name>; returns the file's path. */
export function writeResults(name: string, document: unknown): string {
  const dir = resolve(ROOT, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const text = `${JSON.stringify(document, null, 2)}\n`;
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

function gitDescription(dir = ROOT): string {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: dir, encoding: 'utf8' });
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: dir, encoding: 'utf8' });
  if (head.status !== 0) return 'unknown';
  return `${head.stdout.trim()}${dirty.stdout.trim() ? ' (with uncommitted changes)' : ''}`;
}

/** What a results file records of the machine, the versions and the commit(s) measured. */
export async function machine(adminUrl: string, options: { serviceDir?: string | null; beforeDir?: string | null } = {}) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  const { rows } = await client.query<{ version: string }>('SELECT version()');
  await client.end();
  const node = spawnSync(nodeBinary(), ['--version'], { encoding: 'utf8' }).stdout.trim();
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    loadAverageAtStart: loadavg().map((n) => Math.round(n * 100) / 100),
    node,
    postgres: rows[0]!.version.split(' on ')[0],
    commit: gitDescription(),
    ...(options.serviceDir ? { serviceCommit: gitDescription(options.serviceDir) } : {}),
    ...(options.beforeDir ? { beforeCommit: gitDescription(options.beforeDir) } : {}),
  };
}

/** The service's environment: nothing of the caller's but PATH and HOME (startChild adds PORT). */
export function serviceEnv(databaseUrl: string, dataDir: string, sessionSecret: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    // Counts requests and sends the headers, never refuses: the limiter's cost is measured, the
    // plans' limits (at most 1,000 requests a minute per user) do not cap the load.
    RATE_LIMIT_MODE: 'report',
    LOG_LEVEL: 'warn',
    MCP_SESSION_SECRET: sessionSecret,
  };
}

export interface BenchData {
  db: PreparedDatabase;
  dataDir: string;
  sessionSecret: string;
  workload: Workload;
}

/**
 * The bench database (seeded, or reused with `keep`), a temporary DATA_DIR with the development
 * issuer's key, and every seeded user's token. `onCleanUp` receives what must be undone at the
 * end, in the order it should run after everything started later (the database dropped unless
 * `keep`, the directory removed).
 */
export async function prepareBenchData(
  settings: { adminUrl: string; dbName: string; size: BenchSize; keep: boolean; mcpDeployments: number },
  onCleanUp: (undo: () => Promise<void>) => void,
): Promise<BenchData> {
  log(
    `preparing ${settings.dbName} on ${new URL(settings.adminUrl).host} (${settings.size.users} users, ${settings.size.workflows} public workflows, ${settings.size.deployments} deployments)…`,
  );
  const db = await prepareBenchDatabase(settings.adminUrl, settings.dbName, settings.size, { reuse: settings.keep, log });
  if (!settings.keep) onCleanUp(() => dropBenchDatabase(settings.adminUrl, settings.dbName));
  log(
    `database ready in ${db.seconds.toFixed(1)} s: ${db.counts.users} users, ${db.counts.workflows} workflows, ${db.counts.versions} versions, ${db.counts.libraryEntries} library entries, ${db.counts.deployments} deployments`,
  );

  const dataDir = mkdtempSync(join(tmpdir(), 'wf-bench-'));
  onCleanUp(async () => rmSync(dataDir, { recursive: true, force: true }));
  // The key exists before either server starts, so both trust the tokens signed here.
  await loadOrCreateDevIssuerKey(dataDir);
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  let workload: Workload;
  try {
    workload = await loadWorkload(client, dataDir, { mcpDeployments: settings.mcpDeployments });
  } finally {
    await client.end();
  }
  log(`signed ${workload.users.length} users' tokens; ${workload.deployers.length} users have deployments`);
  return { db, dataDir, sessionSecret: randomBytes(32).toString('hex'), workload };
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}

export interface Child {
  name: string;
  process: ChildProcess;
  pid: number;
  origin: string;
  /** Where bench/count-statements.mjs tells how many SQL statements the process has sent, when preloaded. */
  statementsOrigin: string | null;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
}

const running = new Set<ChildProcess>();
// Whatever way this process ends, no server it started outlives it.
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function prefixLines(name: string, stream: NodeJS.ReadableStream | null): void {
  let pending = '';
  stream?.setEncoding('utf8');
  stream?.on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) log(`[${name}] ${line.length > 400 ? `${line.slice(0, 400)}…` : line}`);
  });
}

/** `--import` arguments that make a child count its SQL statements (bench/count-statements.mjs). */
export async function statementCounter(): Promise<{ args: string[]; env: Record<string, string> }> {
  return {
    args: ['--import', pathToFileURL(resolve(ROOT, 'bench/count-statements.mjs')).href],
    env: { BENCH_STATEMENTS_PORT: String(await freePort()) },
  };
}

/** glibc's malloc settings of this process's environment (MALLOC_ARENA_MAX, MALLOC_TRIM_THRESHOLD_, …). */
function mallocSettings(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('MALLOC_') && e[1] !== undefined),
  );
}

/** Starts `args` under the pinned Node with `env`, listening on `port`, and waits until /healthz answers. */
export async function startChild(name: string, args: string[], env: Record<string, string>, port: number, cwd = ROOT): Promise<Child> {
  const child = spawn(nodeBinary(), args, {
    cwd,
    // The C library's allocator settings pass through, so their effect on memory can be measured.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...mallocSettings(), ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  prefixLines(name, child.stdout);
  prefixLines(name, child.stderr);
  running.add(child);
  const exited = new Promise<void>((done) =>
    child.once('exit', () => {
      running.delete(child);
      done();
    }),
  );
  if (child.pid === undefined) throw new Error(`${name} did not start`);
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${name} exited during start-up (${child.exitCode ?? child.signalCode})`);
    try {
      const res = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not answer /healthz within 60 s`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const statementsOrigin = env.BENCH_STATEMENTS_PORT ? `http://127.0.0.1:${env.BENCH_STATEMENTS_PORT}` : null;
  return { name, process: child, pid: child.pid, origin, statementsOrigin, exited };
}

/** SIGTERM (the service then finishes requests and writes its CPU profile), SIGKILL after `graceMs`. */
export async function stopChild(child: Child, graceMs = 15_000): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill('SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), graceMs);
  await child.exited;
  clearTimeout(timer);
}

/** Resident set size in MB from /proc (Linux), or null where there is no /proc. */
export function rssMb(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round((Number(match[1]) / 1024) * 10) / 10 : null;
  } catch {
    return null;
  }
}

/**
 * CPU time (user + system) a process has used so far, in seconds, from /proc (Linux), or null.
 * Fields 14 and 15 of /proc/<pid>/stat, in clock ticks of 1/100 s (USER_HZ on Linux).
 */
function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** Samples a process's RSS every `everyMs` and keeps the highest value seen. */
function sampleRss(pid: number, everyMs = 100): { stop(): number | null } {
  let peak: number | null = rssMb(pid);
  const timer = setInterval(() => {
    const now = rssMb(pid);
    if (now !== null && (peak === null || now > peak)) peak = now;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  /** Milliseconds, from every response's own timing (autocannon's histogram rounds to whole ms). */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Answers with a 2xx status whose body says it failed (GraphQL or JSON-RPC errors). */
  mismatches: number;
  statusCodes: Record<string, number>;
  peakRssMb: number | null;
  /** CPU time the server used per answer, in milliseconds: what a request costs, whatever the machine's load. */
  cpuMsPerRequest: number | null;
  /** The server's CPU use over the run, in % of one core. */
  cpuPercent: number | null;
}

const MAX_SAMPLES = 5_000_000;

let activeLoad: { stop(): void } | null = null;

/** Ends the load run in progress, if any (an interrupted benchmark must not keep the servers busy while they stop). */
export function stopLoad(): void {
  activeLoad?.stop();
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Connection `i` of `connections` gets its own part of the list, so together they send each request once per cycle. */
function shareOf<T>(list: readonly T[], i: number, connections: number): T[] {
  const from = Math.floor((i * list.length) / connections);
  const to = Math.floor(((i + 1) * list.length) / connections);
  return to > from ? list.slice(from, to) : [list[i % list.length]!];
}

/**
 * Loads `origin` with the scenario's requests for `seconds` over `connections` keep-alive
 * connections. Each connection cycles through its own share of the request list, so at any
 * moment the connections send different users' requests, and every request buffer is built once
 * before the clock starts.
 */
export async function runLoad(
  origin: string,
  scenario: Scenario,
  options: { connections: number; seconds: number; pid?: number },
): Promise<LoadResult> {
  const list = scenario.requests.map((r) => ({ method: r.method, path: r.path, headers: r.headers, body: r.body }));
  let nextConnection = 0;
  const latencies = new Float64Array(MAX_SAMPLES);
  let recorded = 0;
  const sampler = options.pid === undefined ? null : sampleRss(options.pid);
  const instance = autocannon({
    url: origin,
    connections: options.connections,
    duration: options.seconds,
    timeout: 10,
    requests: [list[0]!],
    setupClient(client) {
      client.setRequests(shareOf(list, nextConnection++, options.connections));
    },
    ...(scenario.verifyBody ? { verifyBody: scenario.verifyBody } : {}),
  });
  // autocannon's own duration starts before the connections are set up; this window starts with the load.
  let startedAt = performance.now();
  let cpuAtStart = options.pid === undefined ? null : cpuSeconds(options.pid);
  instance.on('start', () => {
    startedAt = performance.now();
    if (options.pid !== undefined) cpuAtStart = cpuSeconds(options.pid);
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
    if (recorded < MAX_SAMPLES) latencies[recorded++] = responseTime;
  });
  // autocannon stops itself after `duration`; this only guards against a hung run.
  const watchdog = setTimeout(() => instance.stop(), (options.seconds + 30) * 1000);
  activeLoad = instance;
  let result;
  try {
    result = await instance;
  } finally {
    clearTimeout(watchdog);
    activeLoad = null;
  }
  const seconds = (performance.now() - startedAt) / 1000;
  const cpuAtEnd = options.pid === undefined ? null : cpuSeconds(options.pid);
  const cpuUsed = cpuAtStart !== null && cpuAtEnd !== null ? cpuAtEnd - cpuAtStart : null;
  const peakRssMb = sampler?.stop() ?? null;
  const sorted = latencies.subarray(0, recorded).sort();
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, Number(s.count)]));
  const total = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  return {
    requests: total,
    seconds: round2(seconds),
    rps: Math.round(total / seconds),
    p50: round2(percentile(sorted, 50)),
    p90: round2(percentile(sorted, 90)),
    p99: round2(percentile(sorted, 99)),
    max: round2(sorted.length ? sorted[sorted.length - 1]! : Number.NaN),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    mismatches: result.mismatches,
    statusCodes,
    peakRssMb,
    cpuMsPerRequest: cpuUsed !== null && total > 0 ? Math.round((cpuUsed * 1000 * 1000) / total) / 1000 : null,
    cpuPercent: cpuUsed !== null ? Math.round((cpuUsed / seconds) * 100) : null,
  };
}

export function loadFailures(r: LoadResult): string[] {
  const out: string[] = [];
  if (r.non2xx)
    out.push(
      `${r.non2xx} non-2xx answers (${Object.entries(r.statusCodes)
        .filter(([c]) => !c.startsWith('2'))
        .map(([c, n]) => `${c}×${n}`)
        .join(', ')})`,
    );
  if (r.errors) out.push(`${r.errors} connection errors`);
  if (r.timeouts) out.push(`${r.timeouts} timeouts`);
  if (r.mismatches) out.push(`${r.mismatches} answers reporting an error with a 2xx status`);
  if (r.requests === 0) out.push('no answers at all');
  return out;
}

async function send(origin: string, request: BenchRequest): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(`${origin}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/**
 * SQL statements per request with warm caches: the scenario's first `count` requests are sent
 * one at a time, three times, counting each request's statements. The first pass fills the
 * caches; of the other two, each request's lower count is kept, because an entry expiring during
 * a pass (plans are cached for 15 s, viewers for 30 s, each set at its own moment) can only add
 * statements, and one that expired in one pass is fresh in the next.
 */
export async function statementsPerRequest(child: Child, scenario: Scenario, count = 20): Promise<number | null> {
  if (!child.statementsOrigin) return null;
  const counted = async () => Number(await (await fetch(child.statementsOrigin!, { signal: AbortSignal.timeout(5000) })).text());
  const requests = scenario.requests.slice(0, count);
  const fewest = requests.map(() => Number.POSITIVE_INFINITY);
  for (let pass = 0; pass < 3; pass += 1) {
    for (const [i, request] of requests.entries()) {
      const before = await counted();
      await send(child.origin, request);
      if (pass > 0) fewest[i] = Math.min(fewest[i]!, (await counted()) - before);
    }
  }
  return Math.round((fewest.reduce((a, b) => a + b, 0) / requests.length) * 100) / 100;
}

/** The first path at which two JSON values differ, for a readable mismatch report. */
function firstDifference(a: unknown, b: unknown, path = '$'): string | null {
  if (isDeepStrictEqual(a, b)) return null;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return `${path}: service ${JSON.stringify(a)?.slice(0, 200)} ≠ baseline ${JSON.stringify(b)?.slice(0, 200)}`;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const d = firstDifference(
      (a as Record<string, unknown>)[key],
      (b as Record<string, unknown>)[key],
      Array.isArray(a) ? `${path}[${key}]` : `${path}.${key}`,
    );
    if (d) return d;
  }
  return `${path}: differ`;
}

/**
 * Sends the scenario's first `count` requests to both servers and compares the answers after
 * parsing (the part `scenario.comparable` picks). Returns the problems found; none means equal.
 */
export async function compareAnswers(serviceOrigin: string, baselineOrigin: string, scenario: Scenario, count: number): Promise<string[]> {
  const problems: string[] = [];
  const step = Math.max(1, Math.floor(scenario.requests.length / count));
  for (let i = 0; i < count && i * step < scenario.requests.length; i += 1) {
    const request = scenario.requests[i * step]!;
    const [a, b] = [await send(serviceOrigin, request), await send(baselineOrigin, request)];
    if (a.status < 200 || a.status > 299) {
      problems.push(`${request.method} ${request.path}: the service answered ${a.status}: ${a.text.slice(0, 300)}`);
      continue;
    }
    if (b.status !== a.status) {
      problems.push(
        `${request.method} ${request.path}: the service answered ${a.status}, the baseline ${b.status}: ${b.text.slice(0, 300)}`,
      );
      continue;
    }
    const difference = firstDifference(scenario.comparable(JSON.parse(a.text)), scenario.comparable(JSON.parse(b.text)));
    if (difference) problems.push(`${request.method} ${request.path}: ${difference}`);
    else if (scenario.verifyBody && !scenario.verifyBody(a.text))
      problems.push(`${request.method} ${request.path}: the service reported an error: ${a.text.slice(0, 300)}`);
  }
  return problems;
}

/**
 * Opens one MCP session per deployment on the service (initialize, as a client connects, with
 * client names that select each adapter in turn) and picks the first tool of its catalog.
 * Session ids are signed statelessly, so the baseline accepts them too.
 */
export async function openMcpSessions(origin: string, workload: Workload): Promise<McpTarget[]> {
  const targets: McpTarget[] = [];
  for (const [i, { deploymentId, owner }] of workload.deployments.entries()) {
    const path = `/v1/mcp/${deploymentId}`;
    const clientName = MCP_CLIENTS[i % MCP_CLIENTS.length]!;
    const init = await send(origin, { method: 'POST', path, headers: mcpHeaders(owner.token), body: initializeBody(clientName) });
    const sessionId = init.headers.get('mcp-session-id');
    if (init.status !== 200 || !sessionId)
      throw new Error(`initialize on ${path} answered ${init.status} without a session: ${init.text.slice(0, 300)}`);
    const listed = await send(origin, { method: 'POST', path, headers: mcpHeaders(owner.token, sessionId), body: toolsListBody() });
    const tools = (JSON.parse(listed.text) as { result?: { tools?: { name: string }[] } }).result?.tools ?? [];
    // A deployment whose workflows are all switched off for this adapter offers nothing to call.
    if (tools.length === 0) continue;
    targets.push({ deploymentId, token: owner.token, sessionId, clientName, toolName: tools[0]!.name });
  }
  if (targets.length === 0) throw new Error('no deployment offered a tool over MCP');
  return targets;
}
