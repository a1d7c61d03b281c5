import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { startTestApp } from '../helpers/app.js';
import {
  CLIENT_ADAPTERS,
  endpointUrl,
  expectBothWorkflowsOffered,
  expectToolsOfAdapter,
  expectUnknownNamesRefused,
  inProcessFetch,
  setUpSdkClientSuite,
} from '../helpers/mcp.js';
import { createNodeServer } from '../../src/http/node.js';

/**
 * The official SDK client (Client + StreamableHTTPClientTransport) against deployments, one
 * connection per adapter: everything a real IDE agent does, with the SDK's own checks (for
 * example structuredContent against each tool's outputSchema).
 */
const SECRET = 'a-test-session-secret-of-at-least-32-characters';

async function connect(app: App, deploymentId: string, clientName: string, options: { token?: string; query?: string } = {}) {
  const transport = new StreamableHTTPClientTransport(endpointUrl(deploymentId, options.query), {
    fetch: inProcessFetch(app),
    requestInit: options.token ? { headers: { authorization: `Bearer ${options.token}` } } : undefined,
  });
  const client = new Client({ name: clientName, version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('MCP with the official SDK client', () => {
  const s = setUpSdkClientSuite({ env: { MCP_SESSION_SECRET: SECRET } });

  for (const { client: clientName, adapter, toolsPerWorkflow } of CLIENT_ADAPTERS) {
    it(`${clientName} gets ${adapter}: tools, prompts and resources`, async () => {
      const { t, deploymentId, token, owned, subscribed } = s;
      const client = await connect(t.app, deploymentId, clientName, { token });
      try {
        expect(client.getServerVersion()).toMatchObject({ name: 'workflow-service', title: 'Everything' });
        expect(client.getServerCapabilities()).toMatchObject({ tools: {}, prompts: {}, resources: {} });
        expect(client.getInstructions()).toContain('Everything');
        await client.ping();
        await expectBothWorkflowsOffered(client, { owned, subscribed, adapter, toolsPerWorkflow });
      } finally {
        await client.close();
      }
    });
  }

  it('takes the adapter from the URL when the client names none the service knows', async () => {
    const client = await connect(s.t.app, s.deploymentId, 'some-ide', { token: s.token, query: '?adapter=adapter_one' });
    try {
      await expectToolsOfAdapter(client, { adapter: 'adapter_one', tools: 2 });
    } finally {
      await client.close();
    }
  });

  it('surfaces JSON-RPC errors as SDK errors', async () => {
    const client = await connect(s.t.app, s.deploymentId, 'claude-code', { token: s.token });
    try {
      await expectUnknownNamesRefused(client);
    } finally {
      await client.close();
    }
  });

  it('refuses a private deployment without a token', async () => {
    await expect(connect(s.t.app, s.deploymentId, 'claude-code')).rejects.toThrow(/401|token/);
  });

  it('works without state: a second instance with the same secret serves the session the first one opened', async () => {
    const second = await startTestApp({ database: s.t.database, env: { MCP_SESSION_SECRET: SECRET } });
    try {
      // A load balancer alternating between the two instances, request by request.
      const seen: Request[] = [];
      const transport = new StreamableHTTPClientTransport(endpointUrl(s.anonymousId), {
        fetch: inProcessFetch([s.t.app, second.app], seen),
      });
      const client = new Client({ name: 'claude-code', version: '1.0.0' });
      await client.connect(transport);
      // The adapter chosen at initialize on one instance holds on the other.
      await expectToolsOfAdapter(client, { adapter: 'adapter_one', tools: 1, times: 3 });
      expect(seen.length).toBeGreaterThanOrEqual(8);
      await client.close();
    } finally {
      await second.close();
    }
  });

  describe('over a real loopback socket', () => {
    let server: HttpServer;
    let origin: string;
    beforeAll(async () => {
      server = createNodeServer((request, connection) => s.t.app.handle(request, connection));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('connects an anonymous client with the default fetch', async () => {
      const client = new Client({ name: 'Cursor', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/v1/mcp/${s.anonymousId}`)));
      try {
        const { tools } = await client.listTools();
        expect(tools).toHaveLength(1);
        const result = await client.callTool({ name: tools[0]!.name, arguments: { task: 'x' } });
        expect(result.structuredContent).toMatchObject({ adapter: 'adapter_two' });
      } finally {
        await client.close();
      }
    });
  });
});
