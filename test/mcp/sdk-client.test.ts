import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedManifest, seedPlan, seedSubscription, seedWorkflow, userIdOf } from '../helpers/seed.js';
import { createNodeServer } from '../../src/http/node.js';

/**
 * The official SDK client (Client + StreamableHTTPClientTransport) against deployments, one
 * connection per adapter: everything a real IDE agent does, with the SDK's own checks (for
 * example structuredContent against each tool's outputSchema).
 */
const SECRET = 'a-test-session-secret-of-at-least-32-characters';

function inProcessFetch(app: App) {
  return (url: string | URL, init?: RequestInit) => app.fetch(new Request(url, init));
}

async function connect(app: App, deploymentId: string, clientName: string, options: { token?: string; query?: string } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1/v1/mcp/${deploymentId}${options.query ?? ''}`), {
    fetch: inProcessFetch(app),
    requestInit: options.token ? { headers: { authorization: `Bearer ${options.token}` } } : undefined,
  });
  const client = new Client({ name: clientName, version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('MCP with the official SDK client', () => {
  let t: TestApp;
  let token: string;
  let deploymentId: string;
  let anonymousId: string;
  let owned: string;
  let subscribed: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { MCP_SESSION_SECRET: SECRET } });
    token = await t.token('owner@example.com');
    const userId = await userIdOf(t, token);
    await seedPlan(t, userId, 'team');
    owned = await seedWorkflow(t, userId, { name: 'Feature pipeline', description: 'Ships a feature.' });
    const authorTok = await t.token('author@example.com');
    const authorId = await userIdOf(t, authorTok);
    subscribed = await seedWorkflow(t, authorId, {
      name: 'Bug triage',
      visibility: 'public',
      versions: [{ version: '3.1.0', manifest: seedManifest('triage') }],
    });
    await seedSubscription(t, userId, subscribed);
    const create = async (body: Record<string, unknown>) =>
      (await t.call('POST', '/v1/deployments', { token, body })).body.data.deploymentId as string;
    deploymentId = await create({ name: 'Everything', workflowIds: [owned, subscribed] });
    anonymousId = await create({ name: 'Open', workflowIds: [owned], allowAnonymous: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  const cases = [
    { client: 'claude-code', adapter: 'adapter_one', toolsPerWorkflow: 1 },
    { client: 'Cursor', adapter: 'adapter_two', toolsPerWorkflow: 1 },
    { client: 'generic-agent', adapter: 'adapter_three', toolsPerWorkflow: 5 },
  ] as const;

  for (const { client: clientName, adapter, toolsPerWorkflow } of cases) {
    it(`${clientName} gets ${adapter}: tools, prompts and resources`, async () => {
      const client = await connect(t.app, deploymentId, clientName, { token });
      try {
        expect(client.getServerVersion()).toMatchObject({ name: 'workflow-service', title: 'Everything' });
        expect(client.getServerCapabilities()).toMatchObject({ tools: {}, prompts: {}, resources: {} });
        expect(client.getInstructions()).toContain('Everything');
        await client.ping();

        const { tools } = await client.listTools();
        expect(tools).toHaveLength(2 * toolsPerWorkflow);
        for (const tool of tools) expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,48}$/);
        const main = tools.find((x) => x.name.startsWith('feature_pipeline_') && !x.name.includes('__'))!;
        const result = await client.callTool({
          name: main.name,
          arguments: { task: 'Add cursor pagination to GET /orders', context: { framework: 'fastify' } },
        });
        expect(result.isError).toBeFalsy();
        const text = (result.content as { type: string; text: string }[])[0]!;
        expect(text.type).toBe('text');
        expect(text.text).toContain('# Workflow: Feature pipeline (version 1.0.0)');
        expect(text.text).toContain('Add cursor pagination to GET /orders');
        expect(result.structuredContent).toMatchObject({
          workflowId: owned,
          version: '1.0.0',
          adapter,
          task: 'Add cursor pagination to GET /orders',
          context: { framework: 'fastify' },
        });

        const triage = tools.find((x) => x.name.startsWith('bug_triage_') && !x.name.includes('__'))!;
        const second = await client.callTool({ name: triage.name, arguments: {} });
        expect(second.structuredContent).toMatchObject({ workflowId: subscribed, version: '3.1.0', adapter });

        const { prompts } = await client.listPrompts();
        expect(prompts.map((p) => p.name)).toEqual([
          expect.stringMatching(/^feature_pipeline_[0-9a-f]{8}_plan$/),
          expect.stringMatching(/^bug_triage_[0-9a-f]{8}_plan$/),
        ]);
        const prompt = await client.getPrompt({ name: prompts[0]!.name, arguments: { task: 'Fix the login bug' } });
        expect(prompt.messages).toHaveLength(1);
        expect(prompt.messages[0]!.role).toBe('user');
        expect((prompt.messages[0]!.content as { text: string }).text).toContain('Fix the login bug');

        const { resources } = await client.listResources();
        expect(resources.map((r) => r.uri)).toEqual([
          `workflow://${owned}/manifest`,
          `workflow://${subscribed}/manifest`,
          expect.stringMatching(/^skill:\/\/feature-pipeline-[0-9a-f]{8}\/SKILL\.md$/),
          expect.stringMatching(/^skill:\/\/bug-triage-[0-9a-f]{8}\/SKILL\.md$/),
        ]);
        const read = await client.readResource({ uri: resources[1]!.uri });
        expect(read.contents[0]).toMatchObject({ uri: resources[1]!.uri, mimeType: 'application/json' });
        expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual(seedManifest('triage'));
        expect((await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate)).toEqual([
          'workflow://{workflowId}/manifest',
          'skill://{+path}',
        ]);
      } finally {
        await client.close();
      }
    });
  }

  it('takes the adapter from the URL when the client names none the service knows', async () => {
    const client = await connect(t.app, deploymentId, 'some-ide', { token, query: '?adapter=adapter_one' });
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(2);
      const result = await client.callTool({ name: tools[0]!.name, arguments: {} });
      expect(result.structuredContent).toMatchObject({ adapter: 'adapter_one' });
    } finally {
      await client.close();
    }
  });

  it('surfaces JSON-RPC errors as SDK errors', async () => {
    const client = await connect(t.app, deploymentId, 'claude-code', { token });
    try {
      await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining("unknown tool 'no_such_tool'"),
      });
      await expect(client.getPrompt({ name: 'nope' })).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
  });

  it('refuses a private deployment without a token', async () => {
    await expect(connect(t.app, deploymentId, 'claude-code')).rejects.toThrow(/401|token/);
  });

  it('works without state: a second instance with the same secret serves the session the first one opened', async () => {
    const second = await startTestApp({ database: t.database, env: { MCP_SESSION_SECRET: SECRET } });
    try {
      let turn = 0;
      const apps = [t.app, second.app];
      const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1/v1/mcp/${anonymousId}`), {
        // A load balancer alternating between the two instances, request by request.
        fetch: (url, init) => apps[turn++ % 2]!.fetch(new Request(url, init)),
      });
      const client = new Client({ name: 'claude-code', version: '1.0.0' });
      await client.connect(transport);
      for (let i = 0; i < 3; i += 1) {
        const { tools } = await client.listTools();
        const result = await client.callTool({ name: tools[0]!.name, arguments: {} });
        // The adapter chosen at initialize on one instance holds on the other.
        expect(result.structuredContent).toMatchObject({ adapter: 'adapter_one' });
      }
      expect(turn).toBeGreaterThanOrEqual(8);
      await client.close();
    } finally {
      await second.close();
    }
  });

  describe('over a real loopback socket', () => {
    let server: HttpServer;
    let origin: string;
    beforeAll(async () => {
      server = createNodeServer((request, connection) => t.app.handle(request, connection));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('connects an anonymous client with the default fetch', async () => {
      const client = new Client({ name: 'Cursor', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/v1/mcp/${anonymousId}`)));
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
