import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { signDevToken } from '../../src/auth/dev-issuer.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.js';
import { sampleManifest } from '../helpers/workflows.js';
import { createNodeServer } from '../../src/http/node.js';
import { initializeRequest } from '../helpers/mcp.js';
import { REDIS_URL, redisReachable } from '../helpers/redis.js';

/**
 * Two service instances behind one (imaginary) load balancer: each its own process state and
 * HTTP server on its own loopback port, sharing one PostgreSQL database, one Redis and the same
 * configuration (DATA_DIR for the development issuer, MCP_SESSION_SECRET). Limits, quotas and
 * tool-endpoint sessions must hold across them as if they were one.
 */

const reason =
  testDatabaseKind() !== 'postgres'
    ? 'needs PostgreSQL (DATABASE_URL)'
    : !(await redisReachable())
      ? `needs Redis on ${REDIS_URL}, which does not answer`
      : null;

interface Instance {
  app: App;
  server: Server;
  origin: string;
}

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

const INIT = (clientName: string) => initializeRequest({ clientName });

describe.skipIf(reason !== null)(`several instances (${reason ?? 'PostgreSQL + Redis'})`, () => {
  const run = randomBytes(6).toString('hex');
  const prefix = `wf-multi-${run}:`;
  // Made in beforeAll: the body of a skipped describe still runs, its hooks do not.
  let dataDir = '';
  const secret = randomBytes(24).toString('hex');
  let database: TestDatabase;
  const instances: Instance[] = [];
  let a: Instance;
  let b: Instance;

  async function start(env: Record<string, string>): Promise<Instance> {
    const config = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: database.url!,
      REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      RATE_LIMIT_MODE: 'enforce',
      DATA_DIR: dataDir,
      MCP_SESSION_SECRET: secret,
      ...env,
    });
    // Its own database pool, as a separate process would have.
    const app = await createApp(config, { logger: createLogger('silent') });
    const server = createNodeServer((request, connection) => app.handle(request, connection));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const instance = { app, server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    instances.push(instance);
    return instance;
  }

  async function call(
    on: Instance,
    method: string,
    path: string,
    options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${on.origin}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }

  const token = (email: string) => signDevToken(dataDir, { email });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'wf-multi-'));
    database = await createTestDatabase();
    a = await start({});
    b = await start({});
  }, 60_000);

  afterAll(async () => {
    for (const i of instances) {
      i.server.closeAllConnections();
      await new Promise<void>((resolve) => i.server.close(() => resolve()));
      await i.app.close();
    }
    await database?.drop();
    // Only this run's keys: SCAN under the run's prefix, never a flush.
    const redis = new Redis(REDIS_URL);
    try {
      let cursor = '0';
      for (let round = 0; round < 1000; round += 1) {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        if (keys.length) await redis.del(...keys);
        cursor = next;
        if (cursor === '0') break;
      }
    } finally {
      redis.disconnect();
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('runs two instances on their own ports and pools over one database', () => {
    expect(a.origin).not.toBe(b.origin);
    expect(a.app.database).not.toBe(b.app.database);
  });

  it('holds the rate limit across instances: a free user alternating between them gets 429 on the 31st request', async () => {
    const free = await token(`multi-rate-${run}@example.com`);
    const answers: Answer[] = [];
    for (let i = 0; i < 31; i += 1) answers.push(await call(i % 2 === 0 ? a : b, 'GET', '/v1/users/me', { token: free }));
    expect(answers.slice(0, 30).map((r) => r.status)).toEqual(Array(30).fill(200));
    // One budget: each answer, whichever instance gave it, counts down the same window.
    expect(answers.slice(0, 30).map((r) => Number(r.headers.get('x-ratelimit-remaining')))).toEqual(
      Array.from({ length: 30 }, (_, i) => 29 - i),
    );
    const refused = answers[30]!;
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED', details: { limit: 30, window: 'minute' } } });
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    // And the other instance refuses too.
    expect((await call(a, 'GET', '/v1/users/me', { token: free })).status).toBe(429);
  });

  it('holds the workflow quota across instances: concurrent creates by a free user end with exactly 5', async () => {
    const free = await token(`multi-quota-${run}@example.com`);
    const creates = Array.from({ length: 16 }, (_, i) =>
      call(i % 2 === 0 ? a : b, 'POST', '/v1/workflows', { token: free, body: { name: `Quota ${i}`, manifest: sampleManifest() } }),
    );
    const answers = await Promise.all(creates);
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 402)).toHaveLength(11);
    for (const r of answers.filter((x) => x.status === 402))
      expect(r.body.error).toMatchObject({ code: 'PLAN_LIMIT_EXCEEDED', details: { quota: 'workflows', limit: 5, plan: 'free' } });
    const list = await call(b, 'GET', '/v1/workflows?limit=100', { token: free });
    expect(list.body.data).toHaveLength(5);
  });

  it('continues a tool-endpoint session begun on one instance on the other, with the adapter it settled', async () => {
    const owner = await token(`multi-mcp-${run}@example.com`);
    const created = await call(a, 'POST', '/v1/workflows', {
      token: owner,
      body: { name: 'Session pipeline', manifest: sampleManifest() },
    });
    expect(created.status).toBe(201);
    const dep = await call(b, 'POST', '/v1/deployments', {
      token: owner,
      body: { name: 'Across instances', workflowIds: [created.body.data.workflowId] },
    });
    expect(dep.status).toBe(201);
    const path = `/v1/mcp/${dep.body.data.deploymentId}`;
    const mcp = (on: Instance, body: unknown, sessionId?: string) =>
      call(on, 'POST', path, {
        token: owner,
        body,
        headers: {
          accept: 'application/json, text/event-stream',
          ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' } : {}),
        },
      });

    // Claude Code's name settles adapter_one on instance A.
    const init = await mcp(a, INIT('claude-code'));
    expect(init.status).toBe(200);
    const sessionId = init.headers.get('mcp-session-id');
    expect(sessionId).toMatch(/^mcp1\./);

    // Instance B lists the tools of that adapter (one per workflow) from the session alone...
    const listed = await mcp(b, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, sessionId!);
    expect(listed.status).toBe(200);
    const tools = listed.body.result.tools as { name: string }[];
    expect(tools).toHaveLength(1);
    // ...where a request without the session gets the default adapter's tools (one per step too).
    const bare = await mcp(b, { jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect((bare.body.result.tools as unknown[]).length).toBeGreaterThan(1);

    const called = await mcp(
      b,
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: tools[0]!.name, arguments: { task: 'Ship it' } } },
      sessionId!,
    );
    expect(called.status).toBe(200);
    expect(called.body.id).toBe(4);
    expect(called.body.result.structuredContent).toMatchObject({ adapter: 'adapter_one', task: 'Ship it' });
    expect(called.body.result.content[0].text).toContain('adapter_one');

    // An instance configured with another MCP_SESSION_SECRET cannot read it: the secret must be shared.
    const stranger = await start({ MCP_SESSION_SECRET: randomBytes(24).toString('hex') });
    const refused = await mcp(stranger, { jsonrpc: '2.0', id: 5, method: 'tools/list' }, sessionId!);
    expect(refused.status).toBe(404);
    expect(refused.body).toMatchObject({ jsonrpc: '2.0', id: 5, error: { code: -32001 } });
  });
});
