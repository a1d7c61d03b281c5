import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { seedWorkflow, userIdOf } from '../helpers/seed.js';
import { serviceTest } from '../helpers/service-test.js';

/** The owner's deployment, an api key and an mcp key for it. */
interface Keys {
  owner: string;
  deploymentId: string;
  apiKey: string;
  mcpKey: string;
}

const test = serviceTest.extend<{ keys: Keys }>({
  keys: [
    async ({ service: t }, use) => {
      const owner = await t.token('ide@example.com');
      const workflowId = await seedWorkflow(t, await userIdOf(t, owner), { name: 'Feature pipeline' });
      const deploymentId = (await t.call('POST', '/v1/deployments', { token: owner, body: { name: 'IDE', workflowIds: [workflowId] } }))
        .body.data.deploymentId;
      const apiKey = (await t.call('POST', '/v1/api-keys', { token: owner, body: { name: 'Everything', scope: 'api' } })).body.data.secret;
      const mcpKey = (await t.call('POST', '/v1/api-keys', { token: owner, body: { name: 'Claude Code', deploymentIds: [deploymentId] } }))
        .body.data.secret;
      await use({ owner, deploymentId, apiKey, mcpKey });
    },
    { scope: 'file' },
  ],
});

const fetchOf = (t: TestApp) => (url: string | URL, init?: RequestInit) => t.app.fetch(new Request(url, init));
const endpoint = (deploymentId: string) => new URL(`http://127.0.0.1/v1/mcp/${deploymentId}`);
const header = (key: string) => ({ headers: { Authorization: `Bearer ${key}` } });

/**
 * An API key used the way an IDE's configuration uses it (Claude Code's
 * `claude mcp add --transport http <name> <endpoint> --header "Authorization: Bearer <key>"`):
 * one fixed header on every request, with the official clients of both MCP eras, and the same key
 * against REST and GraphQL.
 */
describe('an API key in an IDE-style header configuration', () => {
  test('lists and calls tools with the v2 client on 2026-07-28', async ({ service: t, keys: { deploymentId, mcpKey } }) => {
    const client = new ClientV2({ name: 'claude-code', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new TransportV2(endpoint(deploymentId), { fetch: fetchOf(t), requestInit: header(mcpKey) }));
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    const result = await client.callTool({ name: tools[0]!.name, arguments: { task: 'Add a login page' } });
    expect(result.isError ?? false).toBe(false);
    await client.close();
  });

  test('initializes, lists and calls tools with the v1 client on 2025-11-25', async ({ service: t, keys: { deploymentId, mcpKey } }) => {
    const client = new ClientV1({ name: 'claude-code', version: '1.0.0' });
    await client.connect(new TransportV1(endpoint(deploymentId), { fetch: fetchOf(t), requestInit: header(mcpKey) }));
    expect(client.getServerVersion()?.name).toBeTruthy();
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    const result = await client.callTool({ name: tools[0]!.name, arguments: { task: 'Add a login page' } });
    expect(result.isError ?? false).toBe(false);
    await client.close();
  });

  test('refuses the same clients without the header, and with a revoked key', async ({ service: t, keys: { owner, deploymentId } }) => {
    const bare = new ClientV2({ name: 'claude-code', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await expect(
      bare.connect(new TransportV2(endpoint(deploymentId), { fetch: fetchOf(t) })).then(() => bare.listTools()),
    ).rejects.toThrow();
    const spare = (await t.call('POST', '/v1/api-keys', { token: owner, body: { name: 'Spare' } })).body.data;
    await t.call('DELETE', `/v1/api-keys/${spare.keyId}`, { token: owner });
    const revoked = new ClientV1({ name: 'claude-code', version: '1.0.0' });
    await expect(
      revoked.connect(new TransportV1(endpoint(deploymentId), { fetch: fetchOf(t), requestInit: header(spare.secret) })),
    ).rejects.toThrow();
  });

  test('opens REST and GraphQL with an api key, and not with an mcp key', async ({
    service: t,
    keys: { deploymentId, apiKey, mcpKey },
  }) => {
    expect((await t.call('GET', `/v1/deployments/${deploymentId}`, { token: apiKey })).status).toBe(200);
    expect((await t.graphql('{ me { email } }', {}, apiKey)).body.data.me.email).toBe('ide@example.com');
    expect((await t.call('GET', `/v1/deployments/${deploymentId}`, { token: mcpKey })).status).toBe(403);
  });
});
