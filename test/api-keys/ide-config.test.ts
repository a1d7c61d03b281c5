import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAppWithUsers, type TestApp } from '../helpers/app.js';
import { seedWorkflow, userIdOf } from '../helpers/seed.js';

/**
 * An API key used the way an IDE's configuration uses it (Claude Code's
 * `claude mcp add --transport http <name> <endpoint> --header "Authorization: Bearer <key>"`):
 * one fixed header on every request, with the official clients of both MCP eras, and the same key
 * against REST and GraphQL.
 */
describe('an API key in an IDE-style header configuration', () => {
  let t: TestApp;
  let owner: string;
  let deploymentId: string;
  let apiKey: string;
  let mcpKey: string;

  const fetchFn = (url: string | URL, init?: RequestInit) => t.app.fetch(new Request(url, init));
  const endpoint = () => new URL(`http://127.0.0.1/v1/mcp/${deploymentId}`);
  const header = (key: string) => ({ headers: { Authorization: `Bearer ${key}` } });

  beforeAll(async () => {
    [t, owner] = await startTestAppWithUsers(['ide@example.com']);
    const workflowId = await seedWorkflow(t, await userIdOf(t, owner), { name: 'Feature pipeline' });
    deploymentId = (await t.call('POST', '/v1/deployments', { token: owner, body: { name: 'IDE', workflowIds: [workflowId] } })).body.data
      .deploymentId;
    apiKey = (await t.call('POST', '/v1/api-keys', { token: owner, body: { name: 'Everything', scope: 'api' } })).body.data.secret;
    mcpKey = (await t.call('POST', '/v1/api-keys', { token: owner, body: { name: 'Claude Code', deploymentIds: [deploymentId] } })).body
      .data.secret;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lists and calls tools with the v2 client on 2026-07-28', async () => {
    const client = new ClientV2({ name: 'claude-code', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new TransportV2(endpoint(), { fetch: fetchFn, requestInit: header(mcpKey) }));
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    const result = await client.callTool({ name: tools[0]!.name, arguments: { task: 'Add a login page' } });
    expect(result.isError ?? false).toBe(false);
    await client.close();
  });

  it('initializes, lists and calls tools with the v1 client on 2025-11-25', async () => {
    const client = new ClientV1({ name: 'claude-code', version: '1.0.0' });
    await client.connect(new TransportV1(endpoint(), { fetch: fetchFn, requestInit: header(mcpKey) }));
    expect(client.getServerVersion()?.name).toBeTruthy();
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    const result = await client.callTool({ name: tools[0]!.name, arguments: { task: 'Add a login page' } });
    expect(result.isError ?? false).toBe(false);
    await client.close();
  });

  it('refuses the same clients without the header, and with a revoked key', async () => {
    const bare = new ClientV2({ name: 'claude-code', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await expect(bare.connect(new TransportV2(endpoint(), { fetch: fetchFn })).then(() => bare.listTools())).rejects.toThrow();
    const spare = (await t.call('POST', '/v1/api-keys', { token: owner, body: { name: 'Spare' } })).body.data;
    await t.call('DELETE', `/v1/api-keys/${spare.keyId}`, { token: owner });
    const revoked = new ClientV1({ name: 'claude-code', version: '1.0.0' });
    await expect(revoked.connect(new TransportV1(endpoint(), { fetch: fetchFn, requestInit: header(spare.secret) }))).rejects.toThrow();
  });

  it('opens REST and GraphQL with an api key, and not with an mcp key', async () => {
    expect((await t.call('GET', `/v1/deployments/${deploymentId}`, { token: apiKey })).status).toBe(200);
    expect((await t.graphql('{ me { email } }', {}, apiKey)).body.data.me.email).toBe('ide@example.com');
    expect((await t.call('GET', `/v1/deployments/${deploymentId}`, { token: mcpKey })).status).toBe(403);
  });
});
