import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import { ADAPTERS, type Adapter } from '../../src/manifest/adapter-list.js';
import type { TestApp } from './app.js';
import { seedManifest, seedPlan, seedSubscription, seedWorkflow, userIdOf } from './seed.js';

/** The revision the v2 SDK client is pinned to unless a test asks for the 2025 era. */
export const MODERN = '2026-07-28';

/** The Accept header the Streamable HTTP transport asks clients to send. */
export const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };

/** A 2025-era JSON-RPC `initialize` request, as an IDE's client opens a connection with. */
export function initializeRequest(options: { clientName?: string; protocolVersion?: string; id?: number } = {}) {
  const { clientName = 'probe', protocolVersion = '2025-06-18', id = 1 } = options;
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: clientName, version: '1.0.0' } },
  };
}

/** A deployment's tool endpoint on an in-process app. */
export function endpointUrl(deploymentId: string, query = ''): URL {
  return new URL(`http://127.0.0.1/v1/mcp/${deploymentId}${query}`);
}

/**
 * A fetch that hands each request to an app without a socket; given several apps, to each in turn
 * (a load balancer alternating between instances). `seen` keeps a copy of every request.
 */
export function inProcessFetch(apps: App | App[], seen?: Request[]) {
  const list = Array.isArray(apps) ? apps : [apps];
  let turn = 0;
  return (url: string | URL, init?: RequestInit) => {
    const request = new Request(url, init);
    seen?.push(request.clone());
    return list[turn++ % list.length]!.fetch(request);
  };
}

/**
 * The official v2 SDK client connected to a deployment, pinned to 2026-07-28 unless `pin` is null
 * (then it opens with `initialize`, as a 2025-era client).
 */
export async function connectClient(
  apps: App | App[],
  deploymentId: string,
  clientName: string,
  options: { token?: string; query?: string; pin?: string | null; seen?: Request[] } = {},
): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(endpointUrl(deploymentId, options.query), {
    fetch: inProcessFetch(apps, options.seen),
    requestInit: options.token ? { headers: { authorization: `Bearer ${options.token}` } } : undefined,
  });
  const pin = options.pin === undefined ? MODERN : options.pin;
  const client = new Client({ name: clientName, version: '1.0.0' }, pin ? { versionNegotiation: { mode: { pin } } } : {});
  await client.connect(transport);
  return client;
}

/**
 * A client name that gets each adapter, and how many tools one workflow (seedManifest's, four
 * steps) gives it. Keyed by the adapter list, so a new adapter without a row here fails to compile.
 */
const CLIENT_OF_ADAPTER: Record<Adapter, { client: string; toolsPerWorkflow: number }> = {
  adapter_one: { client: 'claude-code', toolsPerWorkflow: 1 },
  adapter_two: { client: 'Cursor', toolsPerWorkflow: 1 },
  adapter_three: { client: 'generic-agent', toolsPerWorkflow: 5 },
};

/** The adapter each client name gets, and how many tools one workflow gives it: every adapter. */
export const CLIENT_ADAPTERS = ADAPTERS.map((adapter) => ({ adapter, ...CLIENT_OF_ADAPTER[adapter] }));

/** A usage report's `byAdapter`: the given counts, and 0 for every other adapter of the list. */
export function countsByAdapter(counts: Partial<Record<Adapter, number>>): Record<Adapter, number> {
  return Object.fromEntries(ADAPTERS.map((a) => [a, counts[a] ?? 0])) as Record<Adapter, number>;
}

export interface EndpointOwner {
  token: string;
  userId: string;
  /** The owner's own workflow, "Feature pipeline" at 1.0.0. */
  owned: string;
  /** Another author's public workflow, "Bug triage" at 3.1.0 (seedManifest('triage')), in the owner's library. */
  subscribed: string;
  /** Creates a deployment of the owner's through REST; answers its id. */
  deploy(body: Record<string, unknown>): Promise<string>;
}

/** A team-plan owner with a workflow of their own and a subscription to another author's. */
export async function seedEndpointOwner(t: TestApp): Promise<EndpointOwner> {
  const token = await t.token('owner@example.com');
  const userId = await userIdOf(t, token);
  await seedPlan(t, userId, 'team');
  const owned = await seedWorkflow(t, userId, { name: 'Feature pipeline', description: 'Ships a feature.' });
  const authorId = await userIdOf(t, await t.token('author@example.com'));
  const subscribed = await seedWorkflow(t, authorId, {
    name: 'Bug triage',
    visibility: 'public',
    versions: [{ version: '3.1.0', manifest: seedManifest('triage') }],
  });
  await seedSubscription(t, userId, subscribed);
  const deploy = async (body: Record<string, unknown>) =>
    (await t.call('POST', '/v1/deployments', { token, body })).body.data.deploymentId as string;
  return { token, userId, owned, subscribed, deploy };
}

/**
 * What the SDK client suites (v1 and v2) connect to: a team-plan owner (seedEndpointOwner) with
 * "Everything" (private, both workflows) and "Open" (anonymous, the owner's workflow).
 */
export interface SdkClientSuite {
  token: string;
  owned: string;
  subscribed: string;
  deploymentId: string;
  anonymousId: string;
}

export async function seedSdkClientSuite(t: TestApp): Promise<SdkClientSuite> {
  const owner = await seedEndpointOwner(t);
  return {
    token: owner.token,
    owned: owner.owned,
    subscribed: owner.subscribed,
    deploymentId: await owner.deploy({ name: 'Everything', workflowIds: [owner.owned, owner.subscribed] }),
    anonymousId: await owner.deploy({ name: 'Open', workflowIds: [owner.owned], allowAnonymous: true }),
  };
}

/** What the SDK clients (v1 and v2) have in common, as far as these checks use it. */
interface ToolClient {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<Record<string, unknown>>;
  listPrompts(): Promise<{ prompts: { name: string }[] }>;
  getPrompt(params: { name: string; arguments: Record<string, string> }): Promise<{ messages: { role: string; content: unknown }[] }>;
  listResources(): Promise<{ resources: { uri: string }[] }>;
  readResource(params: { uri: string }): Promise<{ contents: unknown[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: { uriTemplate: string }[] }>;
}

/**
 * What a client sees of a deployment bundling the owner's workflow and the subscribed one
 * (seedEndpointOwner): tools, a call of each, prompts, resources and their templates.
 */
export async function expectBothWorkflowsOffered(
  client: ToolClient,
  expected: { owned: string; subscribed: string; adapter: string; toolsPerWorkflow: number },
): Promise<void> {
  const { owned, subscribed, adapter } = expected;
  const { tools } = await client.listTools();
  expect(tools).toHaveLength(2 * expected.toolsPerWorkflow);
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
}

/** A JSON-RPC error for an unknown tool and an unknown prompt surfaces as an SDK error. */
export async function expectUnknownNamesRefused(
  client: Pick<ToolClient, 'callTool'> & { getPrompt(p: { name: string }): Promise<unknown> },
) {
  await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({
    code: -32602,
    message: expect.stringContaining("unknown tool 'no_such_tool'"),
  });
  await expect(client.getPrompt({ name: 'nope' })).rejects.toMatchObject({ code: -32602 });
}

/**
 * A client given `adapter` (by the query parameter, or kept across instances): one tool per
 * workflow of "Everything" or "Open", and each call rendered for that adapter, `times` times over.
 */
export async function expectToolsOfAdapter(
  client: Pick<ToolClient, 'listTools' | 'callTool'>,
  expected: { adapter: string; tools: number; times?: number },
): Promise<void> {
  for (let i = 0; i < (expected.times ?? 1); i += 1) {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(expected.tools);
    const result = await client.callTool({ name: tools[0]!.name, arguments: {} });
    expect(result.structuredContent).toMatchObject({ adapter: expected.adapter });
  }
}
