import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/auth/dev-issuer.js';
import { openDatabase } from '../../src/db/index.js';
import { startTestApp } from '../helpers/app.js';
import { testDatabaseKind } from '../helpers/database.js';
import { sampleManifest } from '../helpers/workflows.js';
import { ownPostgresUnavailable, type OwnPostgres } from '../helpers/own-postgres.js';
import { migratedCluster, sleep, startService, type RunningService } from '../faults/harness.js';

/**
 * The service against a database that goes away and comes back: the process keeps running,
 * requests during the outage get a prompt 503 SERVICE_UNAVAILABLE with Retry-After (never a
 * 500, never a hang), /readyz follows the database, and requests succeed again without
 * restarting the service. The database is a private server this file starts, so restarting it
 * touches nothing else on the machine; the service runs as a real process (src/main.ts).
 */

const unavailable = testDatabaseKind() !== 'postgres' ? 'runs only with DATABASE_URL (PostgreSQL)' : ownPostgresUnavailable();

/** Longest a request may take, outage or not: the pool gives up connecting after 3 s. */
const ANSWER_BOUND_MS = 5000;
const WORKERS = 10;
const LOAD_MS = 9000;
const RESTART_LOAD_MS = 4000;
const OUTAGE_AFTER_MS = 1500;
const OUTAGE_MS = 2500;
/** The query bound of the frozen-database test (the service's default is QUERY_TIMEOUT_MS). */
const FROZEN_QUERY_BOUND_MS = 2000;
/** The service's pool (DATABASE_POOL_SIZE), fewer connections than the load's workers. */
const POOL_SIZE = 6;
/** How soon after the database is back requests must succeed again. */
const RECOVERY_BOUND_MS = 3000;

interface Outcome {
  at: number;
  label: string;
  status: number | 'timeout' | 'network';
  ms: number;
  code?: string;
  retryAfter?: string | null;
  workflowId?: string;
}

describe.skipIf(unavailable !== null)(`a database outage (${unavailable ?? 'own PostgreSQL server'})`, () => {
  let server: OwnPostgres | undefined;
  let service: RunningService | undefined;
  let origin = '';
  const output = () => service?.output() ?? '';

  beforeAll(async () => {
    server = await migratedCluster();
    service = await startService(server.url, { DATABASE_POOL_SIZE: String(POOL_SIZE) });
    origin = service.origin;
  }, 90_000);

  afterAll(async () => {
    await service?.stop();
    await server?.destroy();
  }, 60_000);

  async function timed(label: string, path: string, init: RequestInit = {}, started = 0): Promise<Outcome> {
    const t0 = performance.now();
    try {
      const res = await fetch(`${origin}${path}`, { ...init, signal: AbortSignal.timeout(ANSWER_BOUND_MS) });
      const text = await res.text();
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      return {
        at: t0 - started,
        label,
        status: res.status,
        ms: performance.now() - t0,
        // The envelope's code, the JSON-RPC error's data.code, or the GraphQL extensions code.
        code: typeof body?.error?.code === 'string' ? body.error.code : (body?.error?.data?.code ?? body?.errors?.[0]?.extensions?.code),
        retryAfter: res.headers.get('retry-after'),
        workflowId: res.status === 201 ? body?.data?.workflowId : undefined,
      };
    } catch (error) {
      return {
        at: t0 - started,
        label,
        status: (error as Error).name === 'TimeoutError' ? 'timeout' : 'network',
        ms: performance.now() - t0,
      };
    }
  }

  let tokens: string[] = [];
  let deploymentId = '';
  const createdIds: string[] = [];

  async function seedUsers(): Promise<void> {
    tokens = await Promise.all(['fault-a@example.com', 'fault-b@example.com'].map((email) => signDevToken(service!.dataDir, { email })));
    const admin = new pg.Client({ connectionString: server!.url });
    await admin.connect();
    try {
      for (const token of tokens) {
        const me = await fetch(`${origin}/v1/users/me`, { headers: { authorization: `Bearer ${token}` } });
        expect(me.status).toBe(200);
        const userId = ((await me.json()) as any).data.userId as string;
        // Enterprise, so the workflow quota never answers in place of the database.
        await admin.query(
          `INSERT INTO billing_subscriptions (user_id, plan, status) VALUES ($1, 'enterprise', 'active') ON CONFLICT DO NOTHING`,
          [userId],
        );
      }
      const headers = { authorization: `Bearer ${tokens[0]!}`, 'content-type': 'application/json' };
      const created = await fetch(`${origin}/v1/workflows`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'Served', manifest: sampleManifest() }),
      });
      const workflowId = ((await created.json()) as any).data.workflowId as string;
      const dep = await fetch(`${origin}/v1/deployments`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'Under load', workflowIds: [workflowId] }),
      });
      expect(dep.status).toBe(201);
      deploymentId = ((await dep.json()) as any).data.deploymentId;
    } finally {
      await admin.end();
    }
  }

  /**
   * `WORKERS` clients in a loop (reads and workflow creates) for `durationMs`, while `fault`
   * runs; returns every answer with its start time relative to the start of the load.
   */
  async function underLoad(durationMs: number, fault: (started: number) => Promise<void>): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    const started = performance.now();
    let n = 0;
    async function worker(w: number): Promise<void> {
      const headers = { authorization: `Bearer ${tokens[w % tokens.length]!}`, 'content-type': 'application/json' };
      for (let i = 0; i < 1000 && performance.now() - started < durationMs; i += 1) {
        const k = (n += 1);
        let outcome: Outcome;
        if (k % 5 === 0) {
          const body = JSON.stringify({ name: `Fault ${k}`, manifest: sampleManifest(), tags: ['fault'] });
          outcome = await timed('create', '/v1/workflows', { method: 'POST', headers, body }, started);
          if (outcome.workflowId) createdIds.push(outcome.workflowId);
        } else if (k % 5 === 1) {
          outcome = await timed('me', '/v1/users/me', { headers }, started);
        } else if (k % 5 === 2) {
          outcome = await timed('list', '/v1/workflows?limit=5', { headers }, started);
        } else if (k % 5 === 3) {
          const body = JSON.stringify({ query: '{ workflows(limit: 5) { data { workflowId name } } }' });
          outcome = await timed('graphql', '/graphql', { method: 'POST', headers, body }, started);
        } else {
          const mcp = { ...headers, authorization: `Bearer ${tokens[0]!}`, accept: 'application/json, text/event-stream' };
          const body = JSON.stringify({ jsonrpc: '2.0', id: k, method: 'tools/list' });
          outcome = await timed('mcp', `/v1/mcp/${deploymentId}`, { method: 'POST', headers: mcp, body }, started);
        }
        outcomes.push(outcome);
        await sleep(20);
      }
    }
    await Promise.all([fault(started), ...Array.from({ length: WORKERS }, (_, w) => worker(w))]);
    return outcomes;
  }

  function summarize(outcomes: Outcome[]): string {
    const counts: Record<string, number> = {};
    for (const o of outcomes) {
      const key = `${o.label} ${o.status}${o.code ? ` ${o.code}` : ''}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return JSON.stringify(counts);
  }

  /** Every answer is a success or a prompt 503 SERVICE_UNAVAILABLE with Retry-After. */
  function expectOnlySuccessOr503(outcomes: Outcome[]): void {
    const bad = outcomes.filter(
      (o) => !(((o.status === 200 || o.status === 201) && !o.code) || (o.status === 503 && o.code === 'SERVICE_UNAVAILABLE')),
    );
    expect(bad, `unexpected answers (${summarize(outcomes)}):\n${output().slice(-4000)}`).toEqual([]);
    for (const o of outcomes.filter((x) => x.status === 503)) expect(o.retryAfter, 'Retry-After on a 503').toMatch(/^\d+$/);
    expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(ANSWER_BOUND_MS);
  }

  it('sizes its connection pool from DATABASE_POOL_SIZE', async () => {
    const metrics = await (await fetch(`${origin}/metrics`)).text();
    expect(metrics).toContain(`db_pool_max_connections{database="postgres"} ${POOL_SIZE}\n`);
  });

  it('answers 503 with Retry-After while the database is down, never 500 or a hang, and recovers by itself', async () => {
    await seedUsers();
    expect((await fetch(`${origin}/readyz`)).status).toBe(200);

    const readiness: Outcome[] = [];
    let backAt = Infinity;
    const outcomes = await underLoad(LOAD_MS, async (started) => {
      await sleep(OUTAGE_AFTER_MS);
      await server!.stop();
      const downAt = performance.now();
      for (let i = 0; i < 20 && performance.now() - downAt < OUTAGE_MS - 300; i += 1) {
        readiness.push(await timed('readyz', '/readyz', {}, started));
        await sleep(300);
      }
      await sleep(Math.max(0, OUTAGE_MS - (performance.now() - downAt)));
      await server!.start();
      backAt = performance.now() - started;
    });

    expectOnlySuccessOr503(outcomes);
    expect(outcomes.filter((o) => o.status === 503).length, summarize(outcomes)).toBeGreaterThan(0);
    expect(readiness.length).toBeGreaterThan(0);
    for (const r of readiness) expect([r.status, r.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);

    // Recovery without a restart of the service: once the database is back, requests succeed
    // within the bound, and everything after that succeeds.
    const firstSuccess = outcomes.find((o) => o.at > backAt && (o.status === 200 || o.status === 201));
    expect(firstSuccess, `no success after the database came back (${summarize(outcomes)})`).toBeDefined();
    expect(firstSuccess!.at - backAt).toBeLessThan(RECOVERY_BOUND_MS);
    const settled = outcomes.filter((o) => o.at > backAt + RECOVERY_BOUND_MS);
    expect(settled.length).toBeGreaterThan(0);
    for (const o of settled) expect(o.status, `${o.label} at ${o.at.toFixed(0)} ms`).not.toBe(503);
    const ready = await timed('readyz', '/readyz');
    expect(ready.status).toBe(200);
    console.info(
      `outage of ${OUTAGE_MS} ms: ${summarize(outcomes)}; first success ${(firstSuccess!.at - backAt).toFixed(0)} ms after the database was back`,
    );
  }, 60_000);

  it('survives a fast restart that cuts every pooled connection while the server is back at once', async () => {
    const outcomes = await underLoad(RESTART_LOAD_MS, async () => {
      await sleep(1000);
      await server!.restart();
    });
    expectOnlySuccessOr503(outcomes);
    const last = outcomes.filter((o) => o.at > RESTART_LOAD_MS - 1000);
    expect(last.length).toBeGreaterThan(0);
    for (const o of last) expect(o.status, `${o.label} at ${o.at.toFixed(0)} ms`).not.toBe(503);
  }, 60_000);

  it('bounds requests when the database freezes (connections open, nothing answers) and recovers when it thaws', async () => {
    // In-process, with a short query bound so the test stays quick (production: QUERY_TIMEOUT_MS).
    const db = await openDatabase({ databaseUrl: server!.url, dataDir: '', queryTimeoutMs: FROZEN_QUERY_BOUND_MS });
    const t = await startTestApp({ database: { db, url: server!.url, drop: () => db.close() } });
    try {
      const token = await t.token('freeze@example.com');
      const body = { name: 'Frozen', manifest: sampleManifest() };
      // Warm: the viewer and plan caches hold, and the pool has open connections to freeze.
      await Promise.all(Array.from({ length: 4 }, () => t.call('GET', '/v1/workflows', { token })));
      expect((await t.call('POST', '/v1/workflows', { token, body })).status).toBe(201);

      const thaw = await server!.freeze();
      let during: { label: string; status: number | 'hang'; code?: string; ms: number }[] = [];
      try {
        const bounded = async (label: string, run: () => Promise<{ status: number; body: any }>) => {
          const t0 = performance.now();
          const res = await Promise.race([run(), sleep(ANSWER_BOUND_MS + 3000).then(() => null)]);
          return { label, status: res ? res.status : ('hang' as const), code: res?.body?.error?.code, ms: performance.now() - t0 };
        };
        during = await Promise.all([
          bounded('list', () => t.call('GET', '/v1/workflows', { token })),
          bounded('create', () => t.call('POST', '/v1/workflows', { token, body })),
          bounded('create', () => t.call('POST', '/v1/workflows', { token, body })),
          bounded('me', () => t.call('GET', '/v1/users/me', { token })),
          bounded('readyz', () => t.call('GET', '/readyz')),
          bounded('list', () => t.call('GET', '/v1/workflows?limit=1', { token })),
        ]);
      } finally {
        thaw();
      }
      for (const d of during) {
        expect([d.label, d.status, d.code], JSON.stringify(during)).toEqual([d.label, 503, 'SERVICE_UNAVAILABLE']);
        expect(d.ms, d.label).toBeLessThan(ANSWER_BOUND_MS);
      }

      const thawedAt = performance.now();
      let back = false;
      for (let i = 0; i < 50 && !back && performance.now() - thawedAt < RECOVERY_BOUND_MS * 2; i += 1) {
        back = (await t.call('GET', '/v1/workflows', { token })).status === 200;
        if (!back) await sleep(100);
      }
      expect(back).toBe(true);
      expect((await t.call('POST', '/v1/workflows', { token, body })).status).toBe(201);
      expect((await t.call('GET', '/readyz')).status).toBe(200);
    } finally {
      // The harness leaves a database it was given open.
      await t.close();
      await db.close();
    }
  }, 60_000);
  it('left no half-applied write: every workflow has its version and library entry, every 201 is stored', async () => {
    const admin = new pg.Client({ connectionString: server!.url });
    await admin.connect();
    try {
      const { rows: broken } = await admin.query<{ id: string }>(
        `SELECT w.id FROM workflows w
          WHERE NOT EXISTS (SELECT 1 FROM workflow_versions v WHERE v.workflow_id = w.id AND v.version = w.current_version)
             OR NOT EXISTS (SELECT 1 FROM library_entries l WHERE l.workflow_id = w.id AND l.user_id = w.owner_id)`,
      );
      expect(broken).toEqual([]);
      const { rows: orphans } = await admin.query(
        `SELECT id FROM workflow_versions v WHERE NOT EXISTS (SELECT 1 FROM workflows w WHERE w.id = v.workflow_id)`,
      );
      expect(orphans).toEqual([]);
      expect(createdIds.length).toBeGreaterThan(0);
      const { rows: stored } = await admin.query<{ id: string }>(`SELECT id FROM workflows WHERE id = ANY($1)`, [createdIds]);
      expect(stored.length).toBe(createdIds.length);
    } finally {
      await admin.end();
    }
  });

  it('kept the process up and logged no unexpected error', async () => {
    expect(service!.child.exitCode).toBeNull();
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    const unexpected = output()
      .split('\n')
      .filter((line) => line.includes('unexpected error'));
    expect(unexpected.slice(0, 3)).toEqual([]);
  });
});
