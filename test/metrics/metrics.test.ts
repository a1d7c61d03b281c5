import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetricsRegistry } from '../../src/metrics/registry.js';
import { startTestApp, testOAuthJwks, type CallResult, type TestApp } from '../helpers/app.js';
import { testDatabaseKind } from '../helpers/database.js';
import { seedDeployment, seedWorkflows } from '../helpers/seed-plans.js';
import { userIdOf } from '../helpers/seed.js';
import { serviceTestWith } from '../helpers/service-test.js';

/** GET /metrics: the Prometheus text format, what it counts, and its protection. */

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/** A strict reader of the text exposition format: any line it cannot read fails the test. */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  expect(text.endsWith('\n')).toBe(true);
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.slice(0, -1).split('\n')) {
    if (line.startsWith('# HELP ')) {
      expect(line, line).toMatch(/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* \S.*$/);
      continue;
    }
    if (line.startsWith('# TYPE ')) {
      const m = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      expect(m, line).not.toBeNull();
      types.set(m![1]!, m![2]!);
      continue;
    }
    expect(line.startsWith('#'), `unexpected comment: ${line}`).toBe(false);
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    expect(m, `not a sample line: ${line}`).not.toBeNull();
    const labels: Record<string, string> = {};
    let rest = m![3] ?? '';
    while (rest.length) {
      const lm = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/.exec(rest);
      expect(lm, `bad labels in: ${line}`).not.toBeNull();
      labels[lm![1]!] = lm![2]!.replace(/\\(["\\n])/g, (_s, c: string) => (c === 'n' ? '\n' : c));
      rest = rest.slice(lm![0].length);
    }
    const raw = m![4]!;
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
    expect(Number.isNaN(value) && raw !== 'NaN', `bad value in: ${line}`).toBe(false);
    samples.push({ name: m![1]!, labels, value });
  }
  // Every sample belongs to a declared family (histograms through their suffixes).
  for (const s of samples) {
    const family = types.has(s.name) ? s.name : s.name.replace(/_(bucket|sum|count)$/, '');
    expect(types.has(family), `no TYPE for ${s.name}`).toBe(true);
    expect(family).toMatch(NAME);
  }
  return { samples, types };
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return found.reduce((sum, s) => sum + s.value, 0);
}

async function scrape(t: TestApp, token?: string): Promise<{ res: CallResult; samples: Sample[] }> {
  const res = await t.call('GET', '/metrics', token ? { headers: { authorization: `Bearer ${token}` } } : {});
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return { res, samples: parseExposition(res.text).samples };
}

/** The file's service: every limit enforced, the client address read from one proxy. */
const test = serviceTestWith({ RATE_LIMIT_MODE: 'enforce', TRUST_PROXY_HOPS: '1' });

describe('GET /metrics (open: no METRICS_TOKEN)', () => {
  test('is valid exposition text with requests, durations, refusals, pool and memory', async ({ service: t }) => {
    const token = await t.token('metrics-shape@example.com');
    await t.call('GET', '/v1/users/me', { token });
    const { samples, res } = await scrape(t);
    const { types } = parseExposition(res.text);
    expect(types.get('http_requests_total')).toBe('counter');
    expect(types.get('http_request_duration_seconds')).toBe('histogram');
    expect(types.get('rate_limited_requests_total')).toBe('counter');
    expect(types.get('db_pool_connections')).toBe('gauge');
    expect(types.get('process_resident_memory_bytes')).toBe('gauge');
    expect(value(samples, 'process_resident_memory_bytes')).toBeGreaterThan(1_000_000);
    const pool = samples.find((s) => s.name === 'db_pool_connections')!;
    expect(pool.labels.database).toBe(testDatabaseKind());
    expect(pool.value).toBeGreaterThanOrEqual(1);
    expect(value(samples, 'db_pool_max_connections')).toBeGreaterThanOrEqual(pool.value);
    expect(value(samples, 'db_pool_waiting_requests')).toBeGreaterThanOrEqual(0);
    for (const kind of ['user', 'session', 'anon', 'address'])
      expect(samples.some((s) => s.name === 'rate_limited_requests_total' && s.labels.kind === kind)).toBe(true);

    // Each histogram series: cumulative buckets, +Inf equal to the count.
    const series = new Map<string, Sample[]>();
    for (const s of samples.filter((x) => x.name === 'http_request_duration_seconds_bucket')) {
      const key = `${s.labels.route}|${s.labels.status}`;
      series.set(key, [...(series.get(key) ?? []), s]);
    }
    expect(series.size).toBeGreaterThan(0);
    for (const [key, buckets] of series) {
      const values = buckets.map((b) => b.value);
      expect(
        [...values].sort((a, b) => a - b),
        key,
      ).toEqual(values);
      expect(buckets[buckets.length - 1]!.labels.le).toBe('+Inf');
      const [route, status] = key.split('|');
      expect(values[values.length - 1]).toBe(value(samples, 'http_request_duration_seconds_count', { route: route!, status: status! }));
      expect(values[values.length - 1]).toBe(value(samples, 'http_requests_total', { route: route!, status: status! }));
    }
  });

  test('counts requests by route template and status, never by raw path', async ({ service: t }) => {
    const token = await t.token('metrics-count@example.com');
    const before = (await scrape(t)).samples;
    for (let i = 0; i < 3; i += 1) expect((await t.call('GET', '/v1/users/me', { token })).status).toBe(200);
    const missing = 'wf_metricsrawpathprobe1';
    expect((await t.call('GET', `/v1/workflows/${missing}`, { token })).status).toBe(404);
    const after = await scrape(t);
    const me = { route: 'GET /v1/users/me', status: '200' };
    expect(value(after.samples, 'http_requests_total', me) - value(before, 'http_requests_total', me)).toBe(3);
    expect(value(after.samples, 'http_request_duration_seconds_count', me) - value(before, 'http_request_duration_seconds_count', me)).toBe(
      3,
    );
    expect(value(after.samples, 'http_request_duration_seconds_sum', me)).toBeGreaterThan(
      value(before, 'http_request_duration_seconds_sum', me),
    );
    const one = { route: 'GET /v1/workflows/:workflowId', status: '404' };
    expect(value(after.samples, 'http_requests_total', one) - value(before, 'http_requests_total', one)).toBe(1);
    expect(after.res.text).not.toContain(missing);
    // The previous scrape is counted too, and scraping needs no user token.
    expect(value(after.samples, 'http_requests_total', { route: 'GET /metrics', status: '200' })).toBeGreaterThanOrEqual(1);
  });

  test("shows each bounded cache's entries, bound and lookups; a request answered from a cache moves its hits", async ({ service: t }) => {
    const token = await t.token('metrics-cache@example.com');
    // The first request verifies the token and reads the user; the next ones find both kept.
    expect((await t.call('GET', '/v1/users/me', { token })).status).toBe(200);
    const before = (await scrape(t)).samples;
    for (let i = 0; i < 3; i += 1) expect((await t.call('GET', '/v1/users/me', { token })).status).toBe(200);
    const { samples, res } = await scrape(t);
    const { types } = parseExposition(res.text);
    expect([types.get('cache_entries'), types.get('cache_max_entries'), types.get('cache_lookups_total')]).toEqual([
      'gauge',
      'gauge',
      'counter',
    ]);
    const names = samples.filter((s) => s.name === 'cache_max_entries').map((s) => s.labels.cache);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(
      expect.arrayContaining([
        'argument_validators',
        'manifests',
        'mcp_catalogs',
        'mcp_modern_servers',
        'mcp_sessions',
        'plans',
        'verified_tokens',
        'viewers',
      ]),
    );
    for (const cache of names) {
      const entries = value(samples, 'cache_entries', { cache: cache! });
      expect(entries, cache).toBeGreaterThanOrEqual(0);
      expect(entries, cache).toBeLessThanOrEqual(value(samples, 'cache_max_entries', { cache: cache! }));
    }
    const moved = (cache: string, outcome: string) =>
      value(samples, 'cache_lookups_total', { cache, outcome }) - value(before, 'cache_lookups_total', { cache, outcome });
    expect([moved('verified_tokens', 'hit'), moved('verified_tokens', 'miss')]).toEqual([3, 0]);
    expect([moved('viewers', 'hit'), moved('viewers', 'miss')]).toEqual([3, 0]);
    expect(value(samples, 'cache_entries', { cache: 'verified_tokens' })).toBeGreaterThanOrEqual(1);
  });

  test('counts 429 refusals by the kind of budget: user, anonymous caller, client address', async ({ service: t }) => {
    const before = (await scrape(t)).samples;
    const from = { 'x-forwarded-for': '198.51.100.77' };
    // A free user over 30 a minute.
    const token = await t.token('metrics-429@example.com', { plan: 'free' });
    const userId = await userIdOf(t, token);
    // userIdOf was the first request of the minute.
    for (let i = 1; i < 30; i += 1) expect((await t.call('GET', '/v1/users/me', { token })).status).toBe(200);
    expect((await t.call('GET', '/v1/users/me', { token })).status).toBe(429);
    // An address over 30 unauthenticated requests.
    for (let i = 0; i < 30; i += 1) await t.call('GET', '/v1/users/me', { headers: from });
    expect((await t.call('GET', '/v1/users/me', { headers: from })).status).toBe(429);
    // Anonymous callers of an anonymous deployment, per deployment and address.
    const deploymentId = await seedDeployment(t, userId, await seedWorkflows(t, userId, 1), [], { allowAnonymous: true });
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const anon = { 'x-forwarded-for': '198.51.100.78' };
    for (let i = 0; i < 30; i += 1) await t.call('POST', `/v1/mcp/${deploymentId}`, { body: ping, headers: anon });
    expect((await t.call('POST', `/v1/mcp/${deploymentId}`, { body: ping, headers: anon })).status).toBe(429);

    const after = (await scrape(t)).samples;
    for (const kind of ['user', 'address', 'anon']) {
      expect(value(after, 'rate_limited_requests_total', { kind }) - value(before, 'rate_limited_requests_total', { kind }), kind).toBe(1);
    }
    expect(value(after, 'http_requests_total', { status: '429' }) - value(before, 'http_requests_total', { status: '429' })).toBe(3);
  });

  test('is never rate-limited itself and refuses other methods', async ({ service: t }) => {
    const from = { 'x-forwarded-for': '198.51.100.79' };
    for (let i = 0; i < 35; i += 1) expect((await t.call('GET', '/metrics', { headers: from })).status).toBe(200);
    const post = await t.call('POST', '/metrics', { body: {} });
    expect(post.status).toBe(405);
    expect(post.body).toMatchObject({ success: false, error: { code: 'METHOD_NOT_ALLOWED' } });
  });
});

describe('route labels are a fixed set', () => {
  it('2,000 distinct made-up paths and methods add at most a handful of series', async () => {
    // A service of its own: its settings are not the file's, and the serviceTest fixture gives a file one service.
    const t = await startTestApp({ env: { MCP_SESSION_SECRET: 'a-test-session-secret-of-at-least-32-characters' } });
    try {
      const seriesOf = async () =>
        new Set((await scrape(t)).samples.filter((s) => s.name === 'http_requests_total').map((s) => s.labels.route));
      const before = await seriesOf();
      const shapes = [
        (i: number) => ['GET', `/oauth/probe-${i}`],
        (i: number) => ['POST', `/oauth/register/client-${i}`],
        (i: number) => ['GET', `/oauth/interaction/uid-${i}`],
        (i: number) => ['GET', `/.well-known/probe-${i}`],
        (i: number) => ['GET', `/.well-known/oauth-authorization-server/tenant-${i}`],
        (i: number) => ['GET', `/sign-${i}`],
        (i: number) => ['GET', `/probe-${i}`],
        (i: number) => ['DELETE', `/v1/probe-${i}`],
        (i: number) => ['POST', `/v1/mcp/dep_probe${i}`],
        (i: number) => [`PROBE${i}`, `/graphql`],
      ];
      for (let i = 0; i < 2000; i += 1) {
        const [method, path] = shapes[i % shapes.length]!(i);
        const res = await t.app.fetch(new Request(`http://127.0.0.1${path}`, { method, headers: { accept: 'application/json' } }));
        await res.body?.cancel();
      }
      const added = [...(await seriesOf())].filter((route) => !before.has(route));
      expect(added.length, added.join('\n')).toBeLessThanOrEqual(12);
      for (const route of added) expect(route).not.toMatch(/probe|client-|uid-|tenant-|PROBE/i);
    } finally {
      await t.close();
    }
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const METRICS_TOKEN = 'metrics-test-token-0123456789abcdef';
  let t: TestApp;
  // A service of its own: its settings are not the file's, and the serviceTest fixture gives a file one service.
  beforeAll(async () => {
    t = await startTestApp({ env: { METRICS_TOKEN, RATE_LIMIT_MODE: 'enforce', TRUST_PROXY_HOPS: '1' } });
  });
  afterAll(async () => t?.close());

  it('needs the bearer token: none, a wrong one or a user token get 401 in the envelope', async () => {
    const userToken = await t.token('metrics-user@example.com');
    for (const authorization of [
      undefined,
      'Bearer wrong',
      `Bearer ${METRICS_TOKEN}x`,
      `Bearer ${METRICS_TOKEN.slice(0, -1)}`,
      `Basic ${METRICS_TOKEN}`,
      `Bearer ${userToken}`,
      METRICS_TOKEN,
    ]) {
      const res = await t.call('GET', '/metrics', { headers: authorization ? { authorization } : {} });
      expect(res.status, String(authorization)).toBe(401);
      expect(res.body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(res.text).not.toContain('http_requests_total');
    }
    const { samples } = await scrape(t, METRICS_TOKEN);
    expect(value(samples, 'http_requests_total', { route: 'GET /metrics', status: '401' })).toBe(7);
  });

  it('never limits a scraper with the token, but counts refused tokens per address', async () => {
    const scraper = { authorization: `Bearer ${METRICS_TOKEN}`, 'x-forwarded-for': '198.51.100.80' };
    for (let i = 0; i < 35; i += 1) expect((await t.call('GET', '/metrics', { headers: scraper })).status).toBe(200);
    const guesser = { authorization: 'Bearer guess', 'x-forwarded-for': '198.51.100.81' };
    for (let i = 0; i < 30; i += 1) expect((await t.call('GET', '/metrics', { headers: guesser })).status).toBe(401);
    const refused = await t.call('GET', '/metrics', { headers: guesser });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    const { samples } = await scrape(t, METRICS_TOKEN);
    expect(value(samples, 'rate_limited_requests_total', { kind: 'address' })).toBe(1);
  });
});

describe('GET /metrics in production', () => {
  const production = {
    NODE_ENV: 'production',
    OIDC_ISSUER: 'https://id.example.test',
    OIDC_AUDIENCE: 'workflow-service',
    // Never fetched: no request here carries a user token.
    OIDC_JWKS_URL: 'http://127.0.0.1:9/jwks.json',
    MCP_SESSION_SECRET: 'metrics-production-session-secret-0123456789',
    OAUTH_JWKS: testOAuthJwks(),
  };

  it('is refused (403) without METRICS_TOKEN, and says how to enable it', async () => {
    // A service of its own: its settings are not the file's, and the serviceTest fixture gives a file one service.
    const t = await startTestApp({ env: production });
    try {
      const res = await t.call('GET', '/metrics');
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ success: false, error: { code: 'FORBIDDEN', details: { reason: 'metrics_token_not_configured' } } });
      expect(res.body.error.message).toMatch(/METRICS_TOKEN/);
      expect(res.text).not.toContain('http_requests_total');
    } finally {
      await t.close();
    }
  });

  it('is served with METRICS_TOKEN to a scraper that sends it', async () => {
    const METRICS_TOKEN = 'metrics-production-token-0123456789abcdef';
    // A service of its own: its settings are not the file's, and the serviceTest fixture gives a file one service.
    const t = await startTestApp({ env: { ...production, METRICS_TOKEN } });
    try {
      expect((await t.call('GET', '/metrics')).status).toBe(401);
      const { samples } = await scrape(t, METRICS_TOKEN);
      expect(value(samples, 'http_requests_total', { route: 'GET /metrics', status: '401' })).toBe(1);
    } finally {
      await t.close();
    }
  });
});

describe('the metrics registry', () => {
  const gauges = { pool: { total: 1, idle: 1, waiting: 0, max: 1 }, database: 'pglite', caches: [] };

  it('escapes label values so any route text reads back exactly', () => {
    const registry = createMetricsRegistry();
    const odd = 'GET /a"b\\c\nd';
    registry.observeRequest(odd, 200, 0.003);
    const { samples } = parseExposition(registry.render(gauges));
    expect(samples.find((s) => s.name === 'http_requests_total')!.labels.route).toBe(odd);
  });

  it('puts each duration in the right bucket and keeps at most 2,000 route series', () => {
    const registry = createMetricsRegistry();
    registry.observeRequest('GET /x', 200, 0.004);
    registry.observeRequest('GET /x', 200, 0.3);
    registry.observeRequest('GET /x', 200, 60);
    for (let i = 0; i < 2100; i += 1) registry.observeRequest(`GET /r${i}`, 200, 0.001);
    const { samples } = parseExposition(registry.render(gauges));
    const bucket = (le: string) => value(samples, 'http_request_duration_seconds_bucket', { route: 'GET /x', le });
    expect([bucket('0.005'), bucket('0.25'), bucket('0.5'), bucket('10'), bucket('+Inf')]).toEqual([1, 1, 2, 2, 3]);
    expect(value(samples, 'http_request_duration_seconds_sum', { route: 'GET /x' })).toBeCloseTo(60.304);
    const routes = new Set(samples.filter((s) => s.name === 'http_requests_total').map((s) => s.labels.route));
    expect(routes.size).toBe(2001);
    expect(value(samples, 'http_requests_total', { route: 'other' })).toBe(101);
  });
});
