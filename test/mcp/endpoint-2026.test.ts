import { describe, expect } from 'vitest';
import type { CallResult, TestApp } from '../helpers/app.js';
import { seedPlan, seedWorkflow, userIdOf } from '../helpers/seed.js';
import { serviceTest } from '../helpers/service-test.js';

const MODERN = '2026-07-28';
const ACCEPT = { accept: 'application/json, text/event-stream' };

const meta = (client = 'generic-agent', version: string = MODERN) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': { name: client, version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

interface Options {
  token?: string | null;
  headers?: Record<string, string>;
  query?: string;
  id?: string;
}

/** Alice (team plan) with her workflow in her private deployment "Private", and bob. */
interface World {
  alice: string;
  bob: string;
  wf: string;
  dep: string;
}

function sender(t: TestApp, world: World) {
  /** A well-formed 2026-07-28 request unless the test changes a part of it. */
  return function send(method: string, params: Record<string, unknown> = {}, options: Options = {}, body?: unknown): Promise<CallResult> {
    const headers: Record<string, string> = { ...ACCEPT, 'mcp-protocol-version': MODERN, 'mcp-method': method, ...options.headers };
    if (typeof params.name === 'string' && !('mcp-name' in headers)) headers['mcp-name'] = params.name;
    const token = options.token === undefined ? world.alice : options.token;
    const path = `/v1/mcp/${options.id ?? world.dep}${options.query ?? ''}`;
    const payload = body ?? { jsonrpc: '2.0', id: 1, method, params: { _meta: meta(), ...params } };
    return typeof payload === 'string'
      ? t.call('POST', path, { token, headers, rawBody: payload })
      : t.call('POST', path, { token, headers, body: payload });
  };
}

const test = serviceTest.extend<{ world: World; send: ReturnType<typeof sender> }>({
  world: [
    async ({ service: t }, use) => {
      const alice = await t.token('alice-2026@example.com');
      const bob = await t.token('bob-2026@example.com');
      await seedPlan(t, await userIdOf(t, alice), 'team');
      const wf = await seedWorkflow(t, await userIdOf(t, alice), { name: 'Feature pipeline' });
      const res = await t.call('POST', '/v1/deployments', {
        token: alice,
        body: { name: 'Private', workflowIds: [wf], enabledAdapters: ['adapter_one', 'adapter_three'] },
      });
      await use({ alice, bob, wf, dep: res.body.data.deploymentId });
    },
    { scope: 'file' },
  ],
  send: [async ({ service, world }, use) => use(sender(service, world)), { scope: 'file' }],
});

function expectRpcError(res: CallResult, status: number, code: number, message: RegExp, id: number | null = 1) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ jsonrpc: '2.0', id, error: { code, message: expect.stringMatching(message) } });
}

/** The tool endpoint spoken to as raw JSON-RPC in revision 2026-07-28: bad input, access, adapters. */
describe('tool endpoint, revision 2026-07-28 (raw JSON-RPC)', () => {
  test('serves server/discover with the revision, the capabilities and the instructions', async ({ send }) => {
    const res = await send('server/discover');
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(res.body.result).toMatchObject({
      supportedVersions: [MODERN],
      capabilities: { tools: { listChanged: false }, prompts: { listChanged: false }, resources: { subscribe: false, listChanged: false } },
      instructions: expect.stringContaining('Private'),
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'workflow-service', title: 'Private' } },
    });
  });

  describe('bad input', () => {
    test('a request whose _meta has no protocol version → -32602 naming the missing key', async ({ send }) => {
      const { 'io.modelcontextprotocol/protocolVersion': _omitted, ...rest } = meta();
      const res = await send('tools/list', {}, {}, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: rest } });
      expectRpcError(res, 400, -32602, /missing the required per-request envelope key\(s\): io\.modelcontextprotocol\/protocolVersion/);
    });

    test('an unsupported protocol version → -32022 naming the supported ones', async ({ send }) => {
      const res = await send(
        'tools/list',
        {},
        { headers: { 'mcp-protocol-version': '2027-01-01' } },
        { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta('x', '2027-01-01') } },
      );
      expectRpcError(res, 400, -32022, /Unsupported protocol version '2027-01-01'.*2026-07-28.*2025-11-25, 2025-06-18, 2025-03-26/);
      expect(res.body.error.data).toEqual({ supported: [MODERN], requested: '2027-01-01' });
    });

    test('a method of the other era: initialize or ping in a 2026-07-28 request → -32601', async ({ send }) => {
      const init = await send('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } });
      expectRpcError(init, 404, -32601, /Method not found/);
      expectRpcError(await send('ping'), 404, -32601, /Method not found/);
    });

    test('a 2026-07-28 request with an Mcp-Session-Id → 400 saying sessions belong to 2025', async ({ send }) => {
      const res = await send('tools/list', {}, { headers: { 'mcp-session-id': 'mcp1.abc.def' } });
      expectRpcError(res, 400, -32600, /carries no Mcp-Session-Id/);
    });

    test('a protocol-version header that disagrees with _meta → -32020', async ({ send }) => {
      const res = await send('tools/list', {}, { headers: { 'mcp-protocol-version': '2025-11-25' } });
      expectRpcError(res, 400, -32020, /headers and body disagree.*2026-07-28.*2025-11-25/);
      const noHeader = await send('tools/list', {}, { headers: { 'mcp-method': 'tools/call' } });
      expectRpcError(noHeader, 400, -32020, /headers and body disagree/);
    });

    test('a batch of 2026-07-28 requests → -32600', async ({ send }) => {
      const one = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } };
      const res = await send('tools/list', {}, {}, [one, { ...one, id: 2 }]);
      expectRpcError(res, 400, -32600, /batches/, null);
    });

    test('client information naming another adapter than the adapter parameter: the parameter wins', async ({ send }) => {
      const res = await send(
        'tools/list',
        {},
        { query: '?adapter=adapter_three' },
        { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta('claude-code') } },
      );
      expect(res.status, res.text).toBe(200);
      // adapter_three offers a tool per step besides the workflow's own; adapter_one would offer one.
      expect(res.body.result.tools.length).toBeGreaterThan(1);
      const name = res.body.result.tools[0].name as string;
      const call = await send(
        'tools/call',
        { name, arguments: {} },
        { query: '?adapter=adapter_three' },
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {}, _meta: meta('claude-code') } },
      );
      expect(call.body.result.structuredContent).toMatchObject({ adapter: 'adapter_three' });
      // Without the parameter the same client information gives adapter_one: one tool.
      const fromClient = await send(
        'tools/list',
        {},
        {},
        { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta('claude-code') } },
      );
      expect(fromClient.body.result.tools).toHaveLength(1);
    });
  });

  describe("today's cases, in 2026-07-28", () => {
    test('body not JSON → -32700; not sent as JSON → 415', async ({ send }) => {
      expectRpcError(await send('tools/list', {}, {}, '{"jsonrpc":'), 400, -32700, /Parse error/, null);
      const res = await send(
        'tools/list',
        {},
        { headers: { 'content-type': 'text/plain' } },
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } }),
      );
      expect(res.status).toBe(415);
    });

    test('an unknown method → -32601; an unknown tool, prompt or resource → -32602', async ({ send }) => {
      expectRpcError(await send('tools/frobnicate'), 404, -32601, /not found/i);
      expectRpcError(await send('tools/call', { name: 'no_such_tool', arguments: {} }), 200, -32602, /unknown tool 'no_such_tool'/);
      expectRpcError(await send('prompts/get', { name: 'nope' }), 200, -32602, /nope/);
      const missing = await send(
        'resources/read',
        { uri: 'workflow://nope/manifest' },
        { headers: { 'mcp-name': 'workflow://nope/manifest' } },
      );
      expectRpcError(missing, 200, -32602, /Resource not found/);
      expect(missing.body.error.data).toEqual({ uri: 'workflow://nope/manifest' });
    });

    test('access: no token 401 (as for an unknown id), another user 404, a disabled adapter 403', async ({ send, world: { bob } }) => {
      const none = await send('tools/list', {}, { token: null });
      expectRpcError(none, 401, -32001, /needs a credential/, null);
      expect(none.headers.get('www-authenticate')).toMatch(
        /^Bearer resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/v1\/mcp\/dep_\w+", scope="mcp"$/,
      );
      const unknown = await send('tools/list', {}, { token: null, id: 'dep_unknown00000000000' });
      expect(unknown.status).toBe(401);
      expect(unknown.text).toBe(none.text);
      expectRpcError(await send('tools/list', {}, { token: bob }), 404, -32004, /not found/, null);
      const cursor = await send('tools/list', {}, {}, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta('Cursor') } });
      expectRpcError(cursor, 403, -32003, /adapter 'adapter_two' \(chosen from clientInfo\.name\) is disabled/);
    });

    test('lists tools with titles, annotations and output schemas, and calls one with structured content', async ({
      send,
      world: { wf },
    }) => {
      const list = await send(
        'tools/list',
        {},
        {},
        { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta('claude-code') } },
      );
      expect(list.status).toBe(200);
      const [tool] = list.body.result.tools;
      expect(tool).toMatchObject({
        name: expect.stringMatching(/^[a-zA-Z0-9_-]{1,64}$/),
        title: 'Feature pipeline',
        annotations: { readOnlyHint: true },
        outputSchema: { type: 'object' },
      });
      const call = await send(
        'tools/call',
        { name: tool.name, arguments: { task: 'x' } },
        {},
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool.name, arguments: { task: 'x' }, _meta: meta('claude-code') } },
      );
      expect(call.body.result).toMatchObject({
        resultType: 'complete',
        structuredContent: { workflowId: wf, adapter: 'adapter_one', task: 'x' },
      });
    });
  });

  describe('answered by a kept server or by the SDK handler, the same bytes', () => {
    /** The Mcp-Name header in the SDK's encoded form: such a request is left to the SDK's handler to decode. */
    const encoded = (value: string) => `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;

    test('tools/call, prompts/get and resources/read, answers and errors alike', async ({ send }) => {
      const list = await send('tools/list');
      const prompts = await send('prompts/list');
      const resources = await send('resources/list');
      expect([list.status, prompts.status, resources.status], list.text).toEqual([200, 200, 200]);
      const tool = list.body.result.tools[0].name as string;
      const prompt = prompts.body.result.prompts[0].name as string;
      const uri = resources.body.result.resources[0].uri as string;
      const cases: [string, Record<string, unknown>, string][] = [
        ['tools/call', { name: tool, arguments: { task: 'ship it' } }, tool],
        ['tools/call', { name: 'no_such_tool', arguments: {} }, 'no_such_tool'],
        ['prompts/get', { name: prompt, arguments: { task: 'ship it' } }, prompt],
        ['resources/read', { uri }, uri],
        ['resources/read', { uri: 'workflow://nope/manifest' }, 'workflow://nope/manifest'],
      ];
      for (const [method, params, name] of cases) {
        const plain = await send(method, params, { headers: { 'mcp-name': name } });
        const viaHandler = await send(method, params, { headers: { 'mcp-name': encoded(name) } });
        expect(plain.status, `${method} ${name}: ${plain.text}`).toBe(viaHandler.status);
        expect(plain.text, `${method} ${name}`).toBe(viaHandler.text);
      }
    });

    test("a renamed deployment's next answers carry its new name", async ({ service: t, send, world: { alice, dep } }) => {
      const before = await send('server/discover');
      expect(before.body.result._meta['io.modelcontextprotocol/serverInfo'].title).toBe('Private');
      const renamed = await t.call('PUT', `/v1/deployments/${dep}`, { token: alice, body: { name: 'Private, renamed' } });
      expect(renamed.status, renamed.text).toBe(200);
      try {
        const after = await send('tools/list');
        expect(after.body.result._meta['io.modelcontextprotocol/serverInfo'].title).toBe('Private, renamed');
        expect((await send('server/discover')).body.result.instructions).toContain('"Private, renamed"');
      } finally {
        await t.call('PUT', `/v1/deployments/${dep}`, { token: alice, body: { name: 'Private' } });
      }
    });
  });
});
