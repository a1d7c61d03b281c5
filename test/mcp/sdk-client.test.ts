import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect } from 'vitest';
import type { App } from '../../src/app.js';
import { startTestApp } from '../helpers/app.js';
import {
  CLIENT_ADAPTERS,
  endpointUrl,
  expectBothWorkflowsOffered,
  expectToolsOfAdapter,
  expectUnknownNamesRefused,
  inProcessFetch,
  seedSdkClientSuite,
  type SdkClientSuite,
} from '../helpers/mcp.js';
import { serviceTestWith } from '../helpers/service-test.js';
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

const test = serviceTestWith({ MCP_SESSION_SECRET: SECRET }).extend<{ suite: SdkClientSuite; origin: string }>({
  suite: [async ({ service }, use) => use(await seedSdkClientSuite(service)), { scope: 'file' }],
  /** The service behind a real loopback socket: its origin, closed when the file's tests are done. */
  origin: [
    async ({ service: t }, use) => {
      const server: HttpServer = createNodeServer((request, connection) => t.app.handle(request, connection));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
    { scope: 'file' },
  ],
});

describe('MCP with the official SDK client', () => {
  for (const { client: clientName, adapter, toolsPerWorkflow } of CLIENT_ADAPTERS) {
    test(`${clientName} gets ${adapter}: tools, prompts and resources`, async ({
      service: t,
      suite: { deploymentId, token, owned, subscribed },
    }) => {
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

  test('takes the adapter from the URL when the client names none the service knows', async ({ service: t, suite }) => {
    const client = await connect(t.app, suite.deploymentId, 'some-ide', { token: suite.token, query: '?adapter=adapter_one' });
    try {
      await expectToolsOfAdapter(client, { adapter: 'adapter_one', tools: 2 });
    } finally {
      await client.close();
    }
  });

  test('surfaces JSON-RPC errors as SDK errors', async ({ service: t, suite }) => {
    const client = await connect(t.app, suite.deploymentId, 'claude-code', { token: suite.token });
    try {
      await expectUnknownNamesRefused(client);
    } finally {
      await client.close();
    }
  });

  test('refuses a private deployment without a token', async ({ service: t, suite }) => {
    await expect(connect(t.app, suite.deploymentId, 'claude-code')).rejects.toThrow(/401|token/);
  });

  test('works without state: a second instance with the same secret serves the session the first one opened', async ({
    service: t,
    suite,
  }) => {
    const second = await startTestApp({ database: t.database, env: { MCP_SESSION_SECRET: SECRET } });
    try {
      // A load balancer alternating between the two instances, request by request.
      const seen: Request[] = [];
      const transport = new StreamableHTTPClientTransport(endpointUrl(suite.anonymousId), {
        fetch: inProcessFetch([t.app, second.app], seen),
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
    test('connects an anonymous client with the default fetch', async ({ suite, origin }) => {
      const client = new Client({ name: 'Cursor', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/v1/mcp/${suite.anonymousId}`)));
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
