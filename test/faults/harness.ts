import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { signDevToken } from '../../src/auth/dev-issuer.js';
import { pgRunner } from '../../src/db/index.js';
import { applyMigrations } from '../../src/db/migrations.js';
import { testDatabaseKind } from '../helpers/database.js';
import { ownPostgresUnavailable, startOwnPostgres, type OwnPostgres } from '../helpers/own-postgres.js';
import { freePort, serviceArgs } from '../helpers/process.js';
import { sampleManifest } from '../helpers/workflows.js';

/**
 * What the fault tests share: a private PostgreSQL cluster on a port of its own (started, crashed
 * and locked by the test, never the shared server), the service as a real process on it, and the
 * count of the service's backends as the server sees them.
 *
 * They start their own cluster whatever DATABASE_URL says, so one run is enough: they run in the
 * PGlite stage (DATABASE_URL unset) and skip in the PostgreSQL stages.
 */
export const faultsUnavailable: string | null =
  testDatabaseKind() === 'postgres'
    ? 'runs once, in the stage without DATABASE_URL: it starts its own PostgreSQL'
    : ownPostgresUnavailable();

/** The application_name of the test's own sessions, left out of the service's backend count. */
const ADMIN_APP = 'fault-test-admin';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A private cluster with the service's schema. */
export async function migratedCluster(): Promise<OwnPostgres> {
  const server = await startOwnPostgres();
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    await applyMigrations(pgRunner(client));
  } finally {
    await client.end();
  }
  return server;
}

/** A session of the test's own, straight to PostgreSQL (locks, counts). */
export async function adminSession(server: OwnPostgres): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: server.url, application_name: ADMIN_APP });
  client.on('error', () => {});
  await client.connect();
  return client;
}

/**
 * Backends of anyone but the test's own sessions: the service's connections (direct or through
 * PgBouncer). The statistics snapshot is cleared first: inside a transaction (one holding a lock)
 * PostgreSQL would otherwise answer the same snapshot every time.
 */
export async function serviceBackends(admin: pg.Client): Promise<number> {
  await admin.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await admin.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_stat_activity
      WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND application_name <> $1`,
    [ADMIN_APP],
  );
  return Number(rows[0]!.n);
}

/** Backends of the service waiting for a lock. */
export async function waitingOnLocks(admin: pg.Client): Promise<number> {
  await admin.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await admin.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name <> $1`,
    [ADMIN_APP],
  );
  return Number(rows[0]!.n);
}

export interface RunningService {
  child: ChildProcess;
  origin: string;
  dataDir: string;
  output(): string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** The service (src/main.ts) as its own process on `databaseUrl`, once /healthz answers. */
export async function startService(databaseUrl: string, env: Record<string, string> = {}): Promise<RunningService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wf-faults-'));
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  let out = '';
  const child = spawn(process.execPath, serviceArgs('source'), {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      REDIS_URL: '',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MODE: 'report',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited:\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service did not start:\n${out}`);
    }
    const ok = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await sleep(100);
  }
  return {
    child,
    origin,
    dataDir,
    output: () => out,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await Promise.race([exited, sleep(20_000)]);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A user on the enterprise plan (no quota answers in place of the database) with one workflow. */
export async function seedWriter(
  service: RunningService,
  admin: pg.Client,
  email: string,
): Promise<{ token: string; workflowId: string; headers: Record<string, string> }> {
  const token = await signDevToken(service.dataDir, { email });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const me = await fetch(`${service.origin}/v1/users/me`, { headers });
  if (me.status !== 200) throw new Error(`users/me: ${me.status}`);
  const userId = ((await me.json()) as { data: { userId: string } }).data.userId;
  await admin.query(
    `INSERT INTO billing_subscriptions (user_id, plan, status) VALUES ($1, 'enterprise', 'active') ON CONFLICT DO NOTHING`,
    [userId],
  );
  const created = await fetch(`${service.origin}/v1/workflows`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'Contended', manifest: sampleManifest() }),
  });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${await created.text()}`);
  const workflowId = ((await created.json()) as { data: { workflowId: string } }).data.workflowId;
  return { token, workflowId, headers };
}

/** One answer of a request bounded in time: its status (or what went wrong), code and Retry-After. */
export interface Answer {
  status: number | 'timeout' | 'network';
  code?: string;
  retryAfter?: string | null;
  ms: number;
}

export async function answer(url: string, init: RequestInit = {}, boundMs = 20_000): Promise<Answer> {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(boundMs) });
    const body = (await res.json().catch(() => undefined)) as { error?: { code?: string } } | undefined;
    return { status: res.status, code: body?.error?.code, retryAfter: res.headers.get('retry-after'), ms: performance.now() - t0 };
  } catch (error) {
    return { status: (error as Error).name === 'TimeoutError' ? 'timeout' : 'network', ms: performance.now() - t0 };
  }
}

/** Answers by kind, for failure messages: {"200": 12, "503 SERVICE_UNAVAILABLE": 3}. */
export function tally(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) {
    const key = `${a.status}${a.code ? ` ${a.code}` : ''}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** A 2xx, or a 503 SERVICE_UNAVAILABLE with a Retry-After in seconds. */
export function successOr503(a: Answer): boolean {
  if (typeof a.status === 'number' && a.status >= 200 && a.status < 300) return true;
  return a.status === 503 && a.code === 'SERVICE_UNAVAILABLE' && /^\d+$/.test(a.retryAfter ?? '');
}

/** Debian's PgBouncer, or null when it is not installed. */
export function pgbouncerBinary(): string | null {
  for (const candidate of ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer']) if (existsSync(candidate)) return candidate;
  return null;
}

export interface OwnPgBouncer {
  /** The service's DATABASE_URL through it (`?pgbouncer=true`: statements unnamed). */
  url: string;
  /** What PgBouncer wrote (failure messages). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * A private PgBouncer in transaction pooling mode in front of `server` (as CI's, .ci/run). It
 * refuses to run as root, so it runs as the PostgreSQL user, who owns its directory.
 */
export async function startPgBouncer(server: OwnPostgres): Promise<OwnPgBouncer> {
  const binary = pgbouncerBinary();
  if (!binary) throw new Error('no pgbouncer binary');
  const dir = mkdtempSync(join(tmpdir(), 'wf-faults-pgb-'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=127.0.0.1 port=${server.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 200',
      'default_pool_size = 40',
      'server_idle_timeout = 15',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'users.txt'), '"postgres" ""\n');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync('chown', ['-R', 'postgres', dir]);
  const child = spawn(binary, [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited:\n${out}`);
    const probe = new pg.Client({ connectionString: url });
    probe.on('error', () => {});
    const ok = await probe.connect().then(
      () => probe.end().then(() => true),
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`pgbouncer did not start:\n${out}`);
    }
    await sleep(100);
  }
  return {
    url: `${url}?pgbouncer=true`,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([gone, sleep(5000)]);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
