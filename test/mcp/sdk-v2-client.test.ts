import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedManifest, seedPlan, seedSubscription, seedWorkflow, userIdOf } from '../helpers/seed.js';

/**
 * The official v2 SDK client pinned to revision 2026-07-28 (sessionless: no initialize, `_meta`
 * on every request) against deployments, one client per adapter, and the same client in its
 * 2025 mode (initialize) against the same URL.
 */
const MODERN = '2026-07-28';

function inProcessFetch(app: App, seen?: Request[]) {
  return (url: string | URL, init?: RequestInit) => {
    const request = new Request(url, init);
    seen?.push(request.clone());
    return app.fetch(request);
  };
}

async function connect(
  app: App,
  deploymentId: string,
  clientName: string,
  options: { token?: string; query?: string; pin?: string | null; seen?: Request[] } = {},
) {
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1/v1/mcp/${deploymentId}${options.query ?? ''}`), {
    fetch: inProcessFetch(app, options.seen),
    requestInit: options.token ? { headers: { authorization: `Bearer ${options.token}` } } : undefined,
  });
  const pin = options.pin === undefined ? MODERN : options.pin;
  const client = new Client({ name: clientName, version: '1.0.0' }, pin ? { versionNegotiation: { mode: { pin } } } : {});
  await client.connect(transport);
  return client;
}

describe('MCP 2026-07-28 with the official v2 SDK client', () => {
  let t: TestApp;
  let token: string;
  let deploymentId: string;
  let anonymousId: string;
  let owned: string;
  let subscribed: string;

  beforeAll(async () => {
    t = await startTestApp();
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

  for (const era of [MODERN, null] as const) {
    const label = era ?? '2025-11-25 (initialize)';
    for (const { client: clientName, adapter, toolsPerWorkflow } of cases) {
      it(`${label}: ${clientName} gets ${adapter}: tools, prompts and resources`, async () => {
        const seen: Request[] = [];
        const client = await connect(t.app, deploymentId, clientName, { token, pin: era, seen });
        try {
          expect(client.getNegotiatedProtocolVersion()).toBe(era ?? '2025-11-25');
          expect(client.getServerVersion()).toMatchObject({
            name: 'workflow-service',
            title: 'Everything',
            icons: [{ src: expect.stringMatching(/^data:image\/svg\+xml;base64,/), mimeType: 'image/svg+xml', sizes: ['any'] }],
          });
          expect(client.getServerCapabilities()).toMatchObject({ tools: {}, prompts: {}, resources: {} });
          expect(client.getInstructions()).toContain('Everything');
          // 2026-07-28 has no ping; 2025 clients (and spec 4.3's bare curl) keep it.
          if (!era) await client.ping();

          const { tools } = await client.listTools();
          expect(tools).toHaveLength(2 * toolsPerWorkflow);
          for (const tool of tools) expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,48}$/);
          const main = tools.find((x) => x.name.startsWith('feature_pipeline_') && !x.name.includes('__'))!;
          expect(main.title).toEqual(expect.any(String));
          expect(main.annotations).toMatchObject({ readOnlyHint: true });
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

          const bodies = await Promise.all(
            seen
              .filter((r) => r.method === 'POST')
              .map(async (r) => ({ headers: r.headers, body: (await r.json()) as { method?: string } })),
          );
          if (era) {
            // Sessionless: no initialize and no session id on the wire, the revision on every request.
            expect(bodies.map((b) => b.body.method)).not.toContain('initialize');
            for (const b of bodies) {
              expect(b.headers.get('mcp-session-id')).toBeNull();
              expect(b.headers.get('mcp-protocol-version')).toBe(MODERN);
            }
          } else {
            expect(bodies[0]!.body.method).toBe('initialize');
          }
        } finally {
          await client.close();
        }
      });
    }
  }

  it('takes the adapter from the URL over the client information in _meta', async () => {
    const client = await connect(t.app, deploymentId, 'claude-code', { token, query: '?adapter=adapter_two' });
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(2);
      const result = await client.callTool({ name: tools[0]!.name, arguments: {} });
      expect(result.structuredContent).toMatchObject({ adapter: 'adapter_two' });
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
      await expect(client.readResource({ uri: 'workflow://nope/manifest' })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Resource not found'),
      });
    } finally {
      await client.close();
    }
  });

  it('refuses a private deployment without a token', async () => {
    await expect(
      (async () => {
        const client = await connect(t.app, deploymentId, 'claude-code');
        await client.listTools();
      })(),
    ).rejects.toThrow(/401|private|Unauthorized/i);
  });

  it('serves an anonymous deployment, alternating between two instances', async () => {
    const second = await startTestApp({ database: t.database });
    try {
      let turn = 0;
      const apps = [t.app, second.app];
      const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1/v1/mcp/${anonymousId}`), {
        fetch: (url, init) => apps[turn++ % 2]!.fetch(new Request(url, init)),
      });
      const client = new Client({ name: 'Cursor', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
      await client.connect(transport);
      for (let i = 0; i < 3; i += 1) {
        const { tools } = await client.listTools();
        const result = await client.callTool({ name: tools[0]!.name, arguments: {} });
        expect(result.structuredContent).toMatchObject({ adapter: 'adapter_two' });
      }
      expect(turn).toBeGreaterThanOrEqual(6);
      await client.close();
    } finally {
      await second.close();
    }
  });
});
