import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseKind } from '../helpers/database.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedPlan, seedWorkflow, userIdOf } from '../helpers/seed.js';

/**
 * Connection counts are exact: after N connections, sequential or concurrent (on PostgreSQL
 * truly concurrent transactions over a pool), the usage route, the list's usage and the owner's
 * monthly quota counter all say N.
 */
describe(`connection usage on ${testDatabaseKind()}`, () => {
  let t: TestApp;
  let token: string;
  let first: string;
  let second: string;

  beforeAll(async () => {
    t = await startTestApp();
    token = await t.token('counter@example.com');
    const userId = await userIdOf(t, token);
    await seedPlan(t, userId, 'pro');
    const wf = await seedWorkflow(t, userId);
    const create = async (name: string) => (await t.call('POST', '/v1/deployments', { token, body: { name, workflowIds: [wf], allowAnonymous: true } })).body.data.deploymentId as string;
    first = await create('first');
    second = await create('second');
  });
  afterAll(async () => {
    await t?.close();
  });

  const CLIENTS = ['claude-code', 'cursor-vscode', 'other-agent'];

  function initialize(deploymentId: string, clientName: string): Promise<Response> {
    const body = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: clientName, version: '1' } } };
    return t.app.fetch(
      new Request(`http://127.0.0.1/v1/mcp/${deploymentId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(body),
      }),
    );
  }

  const usageOf = async (id: string) => (await t.call('GET', `/v1/deployments/${id}/usage`, { token })).body.data;

  it('counts N sequential connections exactly', async () => {
    for (let i = 0; i < 9; i += 1) expect((await initialize(first, CLIENTS[i % 3]!)).status).toBe(200);
    const usage = await usageOf(first);
    expect(usage.connections).toEqual({ total: 9, limit: 50_000, remaining: 50_000 - 9 });
    expect(usage.byAdapter).toEqual({ adapter_one: 3, adapter_two: 3, adapter_three: 3 });
  });

  it('counts N concurrent connections on two deployments exactly', async () => {
    const N = 40;
    const responses = await Promise.all(Array.from({ length: N }, (_, i) => initialize(i % 2 ? second : first, CLIENTS[i % 3]!)));
    expect(responses.map((r) => r.status)).toEqual(Array(N).fill(200));

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
});
