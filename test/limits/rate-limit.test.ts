import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/auth/dev-issuer.js';
import { createLogger } from '../../src/logger.js';
import { createRateLimiter } from '../../src/limits/rate-limit.js';
import { rateBudget } from '../../src/limits/plans.js';
import { startTestApp, type CallResult } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';
import { seedDeployment, seedWorkflows } from '../helpers/seed-plans.js';
import { seedPlan, userIdOf } from '../helpers/seed.js';
import { initializeRequest, MCP_ACCEPT } from '../helpers/mcp.js';
import { REDIS_URL, redisReachable } from '../helpers/redis.js';
import { serviceTestWith } from '../helpers/service-test.js';

const ENFORCE = { RATE_LIMIT_MODE: 'enforce' };
const INITIALIZE = initializeRequest();
const FREE = rateBudget('free', 'api');

const hasRedis = await redisReachable();

function expectHeaders(res: CallResult, limit?: number): { limit: number; remaining: number; reset: number } {
  const values = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((h) => res.headers.get(h));
  for (const v of values) expect(v, `rate-limit headers on ${res.status} ${res.text.slice(0, 80)}`).toMatch(/^\d+$/);
  const [l, r, s] = values.map(Number) as [number, number, number];
  if (limit !== undefined) expect(l).toBe(limit);
  expect(r).toBeLessThanOrEqual(l);
  return { limit: l, remaining: r, reset: s };
}

/** A fresh prefix per run, so runs sharing the machine's Redis never see each other's counters. */
function uniquePrefix(): string {
  return `wf-test-${randomBytes(6).toString('hex')}:`;
}

async function cleanRedis(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
}

/** The file's service: limits enforced in memory, the client address read from one proxy. */
const test = serviceTestWith({ ...ENFORCE, TRUST_PROXY_HOPS: '1' });

describe('rate limits per user (in memory)', () => {
  test('refuses the 31st request of a minute on free with 429, the headers and Retry-After', async ({ service: t }) => {
    const token = await t.token('free-31@example.com', { plan: 'free' });
    for (let i = 1; i <= 30; i += 1) {
      const res = await t.call('GET', '/v1/users/me', { token });
      expect(res.status).toBe(200);
      const h = expectHeaders(res, 30);
      expect(h.remaining).toBe(30 - i);
      expect(h.reset).toBeGreaterThanOrEqual(1);
      expect(h.reset).toBeLessThanOrEqual(60);
    }
    const res = await t.call('GET', '/v1/users/me', { token });
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED', details: { limit: 30, window: 'minute' } } });
    const h = expectHeaders(res, 30);
    expect(h.remaining).toBe(0);
    expect(res.headers.get('retry-after')).toBe(String(h.reset));
    // GraphQL shares the same budget and answers 429 with the GraphQL error shape.
    const gql = await t.graphql('{ me { userId } }', {}, token);
    expect(gql.status).toBe(429);
    expect(gql.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expectHeaders(gql, 30);
    // Another user is not affected.
    expect((await t.call('GET', '/v1/users/me', { token: await t.token('other-user@example.com', { plan: 'free' }) })).status).toBe(200);
  });

  test('uses the limits of the plan in force', async ({ service: t }) => {
    const token = await t.token('pro-limits@example.com', { plan: 'free' });
    const userId = await userIdOf(t, token);
    await seedPlan(t, userId, 'pro');
    t.app.services.billing.forgetPlan(userId);
    expectHeaders(await t.call('GET', '/v1/users/me', { token }), 100);
    await seedPlan(t, userId, 'pro', 'canceled');
    t.app.services.billing.forgetPlan(userId);
    expectHeaders(await t.call('GET', '/v1/users/me', { token }), 30);
  });

  test('puts the headers on every kind of response', async ({ service: t }) => {
    const token = await t.token('every-kind@example.com', { plan: 'free' });
    const responses: [string, CallResult][] = [
      ['REST 200', await t.call('GET', '/v1/users/me', { token })],
      ['REST 404 route', await t.call('GET', '/v1/nothing-here', { token })],
      [
        'REST 400 input',
        await t.call('POST', '/v1/billing/checkout', { token, body: { priceId: 'gold', successUrl: 'x', cancelUrl: 'y' } }),
      ],
      ['REST 401', await t.call('GET', '/v1/users/me', { token: 'not.a.token' })],
      ['REST 401 no header', await t.call('GET', '/v1/users/me')],
      ['REST 501 billing', await t.call('POST', '/v1/billing/portal', { token, body: {} })],
      ['GraphQL 200', await t.graphql('{ me { userId plan } }', {}, token)],
      ['GraphQL 401', await t.graphql('{ me { userId } }')],
      ['GraphQL error 200', await t.graphql('{ nope }', {}, token)],
      ['health', await t.call('GET', '/healthz')],
      ['ready', await t.call('GET', '/readyz')],
      ['openapi', await t.call('GET', '/v1/openapi.json')],
      ['webhook 501', await t.call('POST', '/v1/billing/webhook', { rawBody: '{}' })],
      ['MCP 404', await t.call('POST', '/v1/mcp/dep_nope', { body: INITIALIZE, headers: MCP_ACCEPT })],
      ['MCP authenticated 404', await t.call('POST', '/v1/mcp/dep_nope', { token, body: INITIALIZE, headers: MCP_ACCEPT })],
    ];
    for (const [label, res] of responses) {
      expect(res.headers.get('x-ratelimit-limit'), label).not.toBeNull();
      expectHeaders(res);
    }
  });

  test('counts unauthenticated requests per client address at the free rate, and never health checks', async ({ service: t }) => {
    const from = (ip: string) => ({ headers: { 'x-forwarded-for': `203.0.113.9, ${ip}` } });
    for (let i = 0; i < 30; i += 1) expect((await t.call('GET', '/v1/users/me', from('127.0.0.51'))).status).toBe(401);
    const refused = await t.call('GET', '/v1/users/me', from('127.0.0.51'));
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    // Health checks from that address still answer, and show the address's budget without spending it.
    const health = await t.call('GET', '/healthz', from('127.0.0.51'));
    expect(health.status).toBe(200);
    expect(expectHeaders(health, 30).remaining).toBe(0);
    // Another address has its own budget; the client-written part of X-Forwarded-For is ignored.
    const other = await t.call('GET', '/v1/users/me', from('127.0.0.52'));
    expect(other.status).toBe(401);
    expect(expectHeaders(other, 30).remaining).toBe(29);
  });

  test('keeps the sign-in pages and the token endpoint on budgets of their own: an address out of API budget still signs in', async ({
    service: t,
  }) => {
    const from = (ip: string, headers: Record<string, string> = {}) => ({
      headers: { 'x-forwarded-for': `203.0.113.9, ${ip}`, ...headers },
    });
    const ip = '127.0.0.61';
    // Unknown paths and API calls without a credential spend the address's API budget, icons spend nothing.
    for (let i = 0; i < 30; i += 1) expect((await t.call('GET', '/v1/users/me', from(ip))).status).toBe(401);
    expect((await t.call('GET', '/v1/users/me', from(ip))).status).toBe(429);
    const icon = await t.call('GET', '/favicon.ico', from(ip));
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toContain('image/svg+xml');
    const page = await t.call('GET', '/sign-in', from(ip, { accept: 'text/html', 'sec-fetch-mode': 'navigate' }));
    expect(page.status).toBe(200);
    const signIn = expectHeaders(page, rateBudget('free', 'session').perMinute);
    expect(signIn.remaining).toBe(rateBudget('free', 'session').perMinute - 1);
    // The token endpoint (a device's polling) counts on its own budget, not the pages'.
    const token = await t.call('POST', '/oauth/token', {
      ...from(ip, { 'content-type': 'application/x-www-form-urlencoded' }),
      rawBody: 'grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=unknown&client_id=wfctl',
    });
    expect(token.status).toBe(400);
    const again = await t.call('GET', '/sign-in', from(ip, { accept: 'text/html', 'sec-fetch-mode': 'navigate' }));
    expect(expectHeaders(again).remaining).toBe(signIn.remaining - 1);
  });

  test('answers a sign-in form refused by its budget with a page that says when to retry, never the JSON envelope', async ({
    service: t,
  }) => {
    const from = { 'x-forwarded-for': '203.0.113.9, 127.0.0.62', accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' };
    const budget = rateBudget('free', 'session').perMinute;
    for (let i = 0; i < budget; i += 1) await t.call('GET', '/sign-in', { headers: { 'x-forwarded-for': from['x-forwarded-for'] } });
    const refused = await t.call('POST', '/sign-in/dev', { headers: from, rawBody: 'email=someone%40example.com' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toContain('text/html');
    expect(refused.text).toContain('Too many requests');
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  test('refuses a user over the limit on the tool endpoint with HTTP 429 and a JSON-RPC error', async ({ service: t }) => {
    const token = await t.token('mcp-heavy@example.com', { plan: 'free' });
    const userId = await userIdOf(t, token);
    const deploymentId = await seedDeployment(t, userId, await seedWorkflows(t, userId, 1));
    const call = () => t.call('POST', `/v1/mcp/${deploymentId}?adapter=adapter_one`, { token, body: INITIALIZE, headers: MCP_ACCEPT });
    // userIdOf made the first request; 28 more, then the 30th on the endpoint.
    for (let i = 2; i < 30; i += 1) await t.call('GET', '/v1/users/me', { token });
    const last = await call();
    expect(last.status).toBe(200);
    expect(expectHeaders(last, 30).remaining).toBe(0);
    const refused = await call();
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32029 } });
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expectHeaders(refused, 30);
  });

  it('counts anonymous calls to a deployment per deployment and address (the keys limitAnonymous uses)', async () => {
    const limiter = await createRateLimiter({ redisUrl: null, keyPrefix: 'x:', mode: 'enforce', log: createLogger('silent') });
    for (let i = 0; i < 30; i += 1) await limiter.consume(`anon:dep_1:127.0.0.9`, FREE);
    await expect(limiter.consume(`anon:dep_1:127.0.0.9`, FREE)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    await expect(limiter.consume(`anon:dep_2:127.0.0.9`, FREE)).resolves.toMatchObject({ 'X-RateLimit-Remaining': '29' });
    await limiter.close();
  });
});

describe('report mode', () => {
  it('counts and sends the headers but never refuses', async () => {
    // A service of its own: its settings are not the file's, and the serviceTest fixture gives a file one service.
    const t = await startTestApp({ env: { RATE_LIMIT_MODE: 'report' } });
    try {
      const token = await t.token('report@example.com', { plan: 'free' });
      let last: CallResult | undefined;
      for (let i = 0; i < 32; i += 1) last = await t.call('GET', '/v1/users/me', { token });
      expect(last!.status).toBe(200);
      expect(expectHeaders(last!, 30).remaining).toBe(0);
    } finally {
      await t.close();
    }
  });
});

describe.skipIf(!hasRedis)('rate limits in Redis (needs Redis on 127.0.0.1:6379)', () => {
  it('two instances sharing Redis and a database enforce one limit between them', async () => {
    const prefix = uniquePrefix();
    const database = await createTestDatabase();
    // One development issuer for both instances, as one identity provider would be.
    const dataDir = mkdtempSync(join(tmpdir(), 'wf-shared-'));
    const env = { ...ENFORCE, REDIS_URL, REDIS_KEY_PREFIX: prefix, DATA_DIR: dataDir };
    // Not the serviceTest fixture: two service instances on one database and one Redis are the subject.
    const a = await startTestApp({ env, database });
    const b = await startTestApp({ env, database });
    try {
      const token = await signDevToken(dataDir, { email: 'shared@example.com' });
      const tokenB = token;
      await userIdOf(a, token);
      const statuses: number[] = [];
      for (let i = 0; i < 15; i += 1) {
        statuses.push((await a.call('GET', '/v1/users/me', { token })).status);
        statuses.push((await b.call('GET', '/v1/users/me', { token: tokenB })).status);
      }
      // 1 + 30 requests so far: the first 30 passed, the 31st (on b) was refused.
      expect(statuses.filter((s) => s === 200)).toHaveLength(29);
      expect(statuses[statuses.length - 1]).toBe(429);
      const next = await a.call('GET', '/v1/users/me', { token });
      expect(next.status).toBe(429);
      expectHeaders(next, 30);
      expect(a.app.database).toBe(b.app.database);
    } finally {
      await a.close();
      await b.close();
      await database.drop();
      await cleanRedis(prefix);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('keeps answering, with the headers and the limit per instance, when Redis goes away', async () => {
    const prefix = uniquePrefix();
    // A loopback relay to Redis that the test can cut, as a network failure would.
    const sockets = new Set<Socket>();
    const relay: Server = createServer((client) => {
      const upstream = connect(6379, '127.0.0.1');
      sockets.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const port = (relay.address() as AddressInfo).port;
    // A service of its own: its settings are not the file's, and the serviceTest fixture gives a file one service.
    const t = await startTestApp({ env: { ...ENFORCE, REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_KEY_PREFIX: prefix } });
    try {
      const token = await t.token('outage@example.com', { plan: 'free' });
      for (let i = 0; i < 5; i += 1) expect((await t.call('GET', '/v1/users/me', { token })).status).toBe(200);
      relay.close();
      for (const s of sockets) s.destroy();
      await new Promise((r) => setTimeout(r, 100));
      const started = Date.now();
      const during: CallResult[] = [];
      for (let i = 0; i < 31; i += 1) during.push(await t.call('GET', '/v1/users/me', { token }));
      // Requests do not wait on the dead Redis.
      expect(Date.now() - started).toBeLessThan(5000);
      for (const res of during.slice(0, 30)) {
        expect(res.status).toBe(200);
        expectHeaders(res, 30);
      }
      // The in-memory fallback starts its own count, and still refuses the 31st.
      expect(during[30]!.status).toBe(429);
    } finally {
      await t.close();
      await cleanRedis(prefix);
    }
  });

  it('starts and answers when Redis is unreachable from the start', async () => {
    // A service of its own: its settings are not the file's, and the serviceTest fixture gives a file one service.
    const t = await startTestApp({ env: { ...ENFORCE, REDIS_URL: 'redis://127.0.0.1:1' } });
    try {
      const token = await t.token('never-redis@example.com', { plan: 'free' });
      const res = await t.call('GET', '/v1/users/me', { token });
      expect(res.status).toBe(200);
      expect(expectHeaders(res, 30).remaining).toBe(29);
    } finally {
      await t.close();
    }
  });
});
