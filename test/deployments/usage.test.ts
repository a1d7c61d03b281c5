import { describe, expect } from 'vitest';
import { testDatabaseKind } from '../helpers/database.js';
import type { TestApp } from '../helpers/app.js';
import { seedPlan, seedWorkflow, userIdOf } from '../helpers/seed.js';
import { countsByAdapter, initializeRequest } from '../helpers/mcp.js';
import { serviceTestWith } from '../helpers/service-test.js';

const CLIENTS = ['claude-code', 'cursor-vscode', 'other-agent'];

/** Connections of both eras to a tool endpoint of `t`, each from an anonymous client address, and the usage `token`'s owner reads. */
function endpointOf(t: TestApp, token: string) {
  function post(deploymentId: string, address: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return t.app.fetch(
      new Request(`http://127.0.0.1/v1/mcp/${deploymentId}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'x-forwarded-for': address,
          ...headers,
        },
        body: JSON.stringify(body),
      }),
    );
  }

  /** A 2025-era connection: initialize, then a tools/list on its session. */
  async function initialize(deploymentId: string, clientName: string, address: string): Promise<Response> {
    const body = initializeRequest({ clientName, protocolVersion: '2025-11-25' });
    const res = await post(deploymentId, address, body);
    if (res.status !== 200) return res;
    return post(
      deploymentId,
      address,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { 'mcp-session-id': res.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' },
    );
  }

  /** A 2026-07-28 client: three requests, each with its revision and client in _meta, the last one naming another client version. */
  async function modern(deploymentId: string, clientName: string, address: string): Promise<Response> {
    const meta = (version: string) => ({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: clientName, version },
      'io.modelcontextprotocol/clientCapabilities': {},
    });
    const call = (id: number, method: string, version = '1') =>
      post(
        deploymentId,
        address,
        { jsonrpc: '2.0', id, method, params: { _meta: meta(version) } },
        { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method },
      );
    for (const [i, method] of ['server/discover', 'tools/list'].entries()) {
      const res = await call(i, method);
      if (res.status !== 200) return res;
    }
    return call(3, 'prompts/list', '2');
  }

  const usageOf = async (id: string) => (await t.call('GET', `/v1/deployments/${id}/usage`, { token })).body.data;

  return { initialize, modern, usageOf };
}

/** A pro-plan user with deployments "first" and "second" of one workflow, both open to anonymous clients. */
interface World {
  token: string;
  first: string;
  second: string;
}

const test = serviceTestWith({ TRUST_PROXY_HOPS: '1' }).extend<{ world: World; endpoint: ReturnType<typeof endpointOf> }>({
  world: [
    async ({ service: t }, use) => {
      const token = await t.token('counter@example.com');
      const userId = await userIdOf(t, token);
      await seedPlan(t, userId, 'pro');
      const wf = await seedWorkflow(t, userId);
      const create = async (name: string) =>
        (await t.call('POST', '/v1/deployments', { token, body: { name, workflowIds: [wf], allowAnonymous: true } })).body.data
          .deploymentId as string;
      const first = await create('first');
      const second = await create('second');
      await use({ token, first, second });
    },
    { scope: 'file' },
  ],
  endpoint: [async ({ service, world: { token } }, use) => use(endpointOf(service, token)), { scope: 'file' }],
});

/**
 * Connection counts are exact: after N connections, sequential or concurrent (on PostgreSQL
 * truly concurrent transactions over a pool), the usage route, the list's usage and the owner's
 * monthly quota counter all say N. A connection is the first served request of a caller (here an
 * anonymous client address) on an adapter of a deployment in a UTC day, in either MCP era; more
 * requests of the same connection, and whatever the client writes in `_meta`, add nothing.
 */
describe(`connection usage on ${testDatabaseKind()}`, () => {
  test('counts N sequential connections exactly', async ({ world: { first }, endpoint: { initialize, usageOf } }) => {
    for (let i = 0; i < 9; i += 1) {
      // Each address connects twice on its adapter: the second initialize belongs to the same connection.
      expect((await initialize(first, CLIENTS[i % 3]!, `198.51.100.${i}`)).status).toBe(200);
      expect((await initialize(first, CLIENTS[i % 3]!, `198.51.100.${i}`)).status).toBe(200);
    }
    const usage = await usageOf(first);
    expect(usage.connections).toEqual({ total: 9, limit: 50_000, remaining: 50_000 - 9 });
    expect(usage.byAdapter).toEqual(countsByAdapter({ adapter_one: 3, adapter_two: 3, adapter_three: 3 }));
  });

  test('counts N concurrent connections on two deployments exactly, in both eras', async ({
    service: t,
    world: { token, first, second },
    endpoint: { initialize, modern, usageOf },
  }) => {
    const N = 40;
    // 40 clients at once, half of them 2026-07-28 clients, each sending its requests twice in parallel.
    const client = (i: number) => (i % 4 < 2 ? initialize : modern)(i % 2 ? second : first, CLIENTS[i % 3]!, `203.0.113.${i}`);
    const responses = await Promise.all(Array.from({ length: 2 * N }, (_, j) => client(j % N)));
    expect(responses.map((r) => r.status)).toEqual(Array(2 * N).fill(200));

    const a = await usageOf(first);
    const b = await usageOf(second);
    expect(a.connections.total).toBe(9 + N / 2);
    expect(b.connections.total).toBe(N / 2);
    // The quota counter is the owner's, over both deployments.
    expect(a.connections.remaining).toBe(50_000 - 9 - N);
    expect(b.connections.remaining).toBe(a.connections.remaining);
    const sum = (u: any) => u.byAdapter.adapter_one + u.byAdapter.adapter_two + u.byAdapter.adapter_three;
    expect(sum(a)).toBe(a.connections.total);
    expect(sum(b)).toBe(b.connections.total);
    expect(a.byDay.reduce((n: number, d: any) => n + d.count, 0)).toBe(a.connections.total);

    const list = (await t.call('GET', '/v1/deployments', { token })).body.data;
    const byId = Object.fromEntries(list.map((d: any) => [d.deploymentId, d.usage.connectionsThisMonth]));
    expect(byId).toEqual({ [first]: 9 + N / 2, [second]: N / 2 });
    for (const d of list) expect(d.usage.lastConnectedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  test('every face reads the same plan: an unpaid team subscription counts as free in the usage report, GraphQL and the rate limit', async ({
    service: t,
  }) => {
    const owner = await t.token('unpaid-team@example.com', { plan: 'free' });
    // No request yet: the first one (below) reads the plan with the subscription already there.
    const { id: ownerId } = await t.database.db.prisma.user.findFirstOrThrow({ where: { email: 'unpaid-team@example.com' } });
    await t.database.db.prisma.billingSubscription.create({ data: { userId: ownerId, plan: 'team', status: 'unpaid' } });
    const wf = await seedWorkflow(t, ownerId);
    const created = await t.call('POST', '/v1/deployments', { token: owner, body: { name: 'unpaid', workflowIds: [wf] } });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-ratelimit-limit')).toBe('30');
    const usage = (await t.call('GET', `/v1/deployments/${created.body.data.deploymentId}/usage`, { token: owner })).body.data;
    expect(usage.connections).toEqual({ total: 0, limit: 500, remaining: 500 });
    const me = await t.graphql('{ me { plan limits { connectionsPerMonth } usage { connections { limit } } } }', {}, owner);
    expect(me.body.data.me).toEqual({ plan: 'free', limits: { connectionsPerMonth: 500 }, usage: { connections: { limit: 500 } } });
  });
});
