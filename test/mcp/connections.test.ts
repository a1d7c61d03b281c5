import { describe, expect } from 'vitest';
import { connectionUsage } from '../../src/limits/quota.js';
import type { CallResult, TestApp } from '../helpers/app.js';
import { testDatabaseKind } from '../helpers/database.js';
import { seedConnections, seedDeployment, seedWorkflows } from '../helpers/seed-plans.js';
import { userIdOf } from '../helpers/seed.js';
import { serviceTestWith } from '../helpers/service-test.js';

const ACCEPT = { accept: 'application/json, text/event-stream' };
const MODERN = '2026-07-28';
const meta = (name = 'probe', version = '1') => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name, version },
  'io.modelcontextprotocol/clientCapabilities': {},
});

interface Caller {
  token?: string;
  address?: string;
}

/** Requests of both eras to a deployment's tool endpoint on `t`, and free-plan owners of a deployment open to anonymous clients. */
function endpointOf(t: TestApp) {
  function legacy(
    deploymentId: string,
    method: string,
    params: Record<string, unknown> | undefined,
    who: Caller = {},
  ): Promise<CallResult> {
    const headers: Record<string, string> = { ...ACCEPT };
    if (who.address) headers['x-forwarded-for'] = who.address;
    return t.call('POST', `/v1/mcp/${deploymentId}`, {
      token: who.token,
      headers,
      body: { jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) },
    });
  }

  function modern(
    deploymentId: string,
    method: string,
    params: Record<string, unknown>,
    who: Caller = {},
    client = meta(),
  ): Promise<CallResult> {
    const headers: Record<string, string> = { ...ACCEPT, 'mcp-protocol-version': MODERN, 'mcp-method': method };
    if (who.address) headers['x-forwarded-for'] = who.address;
    if (method === 'tools/call' || method === 'prompts/get') headers['mcp-name'] = String(params.name);
    if (method === 'resources/read') headers['mcp-name'] = String(params.uri);
    return t.call('POST', `/v1/mcp/${deploymentId}`, {
      token: who.token,
      headers,
      body: { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: client } },
    });
  }

  const initialize = (deploymentId: string, who: Caller = {}, name = 'probe') =>
    legacy(deploymentId, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name, version: '1' } }, who);

  async function freeOwner(email: string) {
    const token = await t.token(email, { plan: 'free' });
    const userId = await userIdOf(t, token);
    const [wf] = await seedWorkflows(t, userId, 1);
    const deploymentId = await seedDeployment(t, userId, [wf!], [], { allowAnonymous: true });
    await t.database.db.prisma.deployment.update({
      where: { id: deploymentId },
      data: { enabledAdapters: ['adapter_one', 'adapter_two', 'adapter_three'] },
    });
    await t.database.db.prisma.libraryEntry.updateMany({
      where: { userId },
      data: { enabledAdapters: ['adapter_one', 'adapter_two', 'adapter_three'] },
    });
    return { token, userId, deploymentId, workflowId: wf! };
  }

  return { legacy, modern, initialize, freeOwner };
}

const test = serviceTestWith({ TRUST_PROXY_HOPS: '1' }).extend<{ endpoint: ReturnType<typeof endpointOf> }>({
  endpoint: [async ({ service }, use) => use(endpointOf(service)), { scope: 'file' }],
});

/**
 * Connections and the monthly connection quota at the tool endpoint, in both MCP eras: every
 * served request belongs to a counted connection or is refused (402); anonymous clients cannot
 * use the owner's own part of the month; `_meta` cannot inflate the count.
 */
describe(`tool-endpoint connections and the quota on ${testDatabaseKind()}`, () => {
  test('once the month is used up, every request of a new connection is refused with 402 in both eras, and counted connections go on', async ({
    service: t,
    endpoint: { freeOwner, initialize, legacy, modern },
  }) => {
    const { token, userId, deploymentId, workflowId } = await freeOwner('skip-handshake@example.com');
    // The owner's connection of today is counted before the month runs out.
    expect((await initialize(deploymentId, { token })).status).toBe(200);
    await seedConnections(t, userId, 500);
    const stranger = { address: '192.0.2.10' };
    const uri = `workflow://${workflowId}/manifest`;
    const tools = (await legacy(deploymentId, 'tools/list', undefined, { token })).body.result.tools as { name: string }[];
    const prompt = (await legacy(deploymentId, 'prompts/list', undefined, { token })).body.result.prompts[0].name as string;
    const calls: [string, Record<string, unknown>][] = [
      ['tools/list', {}],
      ['tools/call', { name: tools[0]!.name, arguments: {} }],
      ['prompts/list', {}],
      ['prompts/get', { name: prompt }],
      ['resources/list', {}],
      ['resources/read', { uri }],
    ];
    for (const [method, params] of calls) {
      // A client that skips initialize, in the 2025 era, and a 2026-07-28 client: refused and not counted.
      for (const res of [await legacy(deploymentId, method, params, stranger), await modern(deploymentId, method, params, stranger)]) {
        expect(res.status, `${method}: ${res.text}`).toBe(402);
        expect(res.body).toMatchObject({
          jsonrpc: '2.0',
          id: 1,
          error: { code: -32010, data: { code: 'PLAN_LIMIT_EXCEEDED', quota: 'connections' } },
        });
      }
      // The owner's connection, counted earlier today, is still served in the same era.
      const served = await legacy(deploymentId, method, params, { token });
      expect(served.status, `${method}: ${served.text}`).toBe(200);
      expect(served.body.result).toBeDefined();
    }
    // A 2026-07-28 request of the owner on that adapter is the same connection (same caller, adapter and day).
    expect((await modern(deploymentId, 'tools/list', {}, { token })).status).toBe(200);
    await expect(connectionUsage(t.database.db.prisma, userId)).resolves.toEqual({ total: 500, limit: 500, remaining: 0 });
  });

  test('an anonymous flood uses at most the anonymous half of the month; the owner still connects', async ({
    service: t,
    endpoint: { freeOwner, initialize, modern },
  }) => {
    const { token, userId, deploymentId } = await freeOwner('flooded@example.com');
    const statuses: number[] = [];
    // 300 addresses, each connecting twice (the second is the same connection), in batches of 30.
    for (let batch = 0; batch < 10; batch += 1) {
      const results = await Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          const address = `10.${batch}.0.${i + 1}`;
          const first = await initialize(deploymentId, { address });
          await modern(deploymentId, 'tools/list', {}, { address });
          return first.status;
        }),
      );
      statuses.push(...results);
    }
    expect(
      statuses.filter((s) => s !== 200 && s !== 402),
      JSON.stringify(statuses),
    ).toEqual([]);
    expect(statuses.filter((s) => s === 200)).toHaveLength(250);
    expect(statuses.filter((s) => s === 402)).toHaveLength(50);
    const refused = await initialize(deploymentId, { address: '10.99.0.1' });
    expect(refused.status).toBe(402);
    expect(refused.body.error.message).toMatch(/anonymous connections .* used up .*owner's own connections are not affected/);
    await expect(connectionUsage(t.database.db.prisma, userId)).resolves.toEqual({ total: 250, limit: 500, remaining: 250 });
    // The owner's own connections are untouched by the flood, in both eras.
    expect((await initialize(deploymentId, { token })).status).toBe(200);
    expect((await modern(deploymentId, 'tools/list', {}, { token }, meta('Cursor'))).status).toBe(200);
    await expect(connectionUsage(t.database.db.prisma, userId)).resolves.toMatchObject({ total: 252 });
  }, 120_000);

  test('an answer that is a JSON-RPC error counts no connection, in either era; a result does', async ({
    service: t,
    endpoint: { freeOwner, legacy, modern },
  }) => {
    const { token, userId, deploymentId } = await freeOwner('errors-only@example.com');
    const who = { token };
    const unknownTool = await modern(deploymentId, 'tools/call', { name: 'no_such_tool', arguments: {} }, who, meta('claude-code'));
    expect(unknownTool.status, unknownTool.text).toBe(200);
    expect(unknownTool.body.error.code).toBe(-32602);
    const legacyError = await legacy(deploymentId, 'prompts/get', { name: 'no_such_prompt' }, who);
    expect(legacyError.status, legacyError.text).toBe(200);
    expect(legacyError.body.error.code).toBe(-32602);
    await expect(connectionUsage(t.database.db.prisma, userId)).resolves.toMatchObject({ total: 0 });
    expect((await modern(deploymentId, 'tools/list', {}, who, meta('Cursor'))).status).toBe(200);
    expect((await legacy(deploymentId, 'tools/list', undefined, who)).status).toBe(200);
    await expect(connectionUsage(t.database.db.prisma, userId)).resolves.toMatchObject({ total: 2 });
  });

  test('what a client writes in _meta cannot inflate the count', async ({ service: t, endpoint: { freeOwner, modern } }) => {
    const { token, userId, deploymentId } = await freeOwner('meta-games@example.com');
    const who = { token };
    // Other client versions, other capabilities, other names that map to the same adapter: one connection.
    for (const [name, version] of [
      ['probe', '1'],
      ['probe', '2'],
      ['other-agent', '9'],
      ['generic', '0.0.1'],
    ] as const) {
      expect(
        (
          await modern(deploymentId, 'tools/list', {}, who, {
            ...meta(name, version),
            'io.modelcontextprotocol/clientCapabilities': { roots: {} },
          })
        ).status,
      ).toBe(200);
    }
    await expect(connectionUsage(t.database.db.prisma, userId)).resolves.toMatchObject({ total: 1 });
  });
});
