import { describe, expect } from 'vitest';
import type { CallResult, TestApp } from '../helpers/app.js';
import { countsByAdapter } from '../helpers/mcp.js';
import { createWorkflow, sampleManifest } from '../helpers/workflows.js';
import { seedPlan, seedSubscription, seedWorkflow, updateLibraryEntry, userIdOf } from '../helpers/seed.js';
import { serviceTest } from '../helpers/service-test.js';

const NAME = /^[a-zA-Z0-9_-]{1,48}$/;
const ACCEPT = { accept: 'application/json, text/event-stream' };

interface RpcOptions {
  token?: string | null;
  session?: string | null;
  headers?: Record<string, string>;
  query?: string;
}

const request = (method: string, params?: Record<string, unknown>, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params ? { params } : {}),
});
const initialize = (clientName = 'test-client', protocolVersion = '2025-11-25') =>
  request('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: clientName, version: '1.0.0' } });

/** Alice's deployments and the requests she (unless told otherwise) sends to a tool endpoint of `t`. */
function endpointOf(t: TestApp, alice: string) {
  async function createDeployment(body: Record<string, unknown>): Promise<string> {
    const res = await t.call('POST', '/v1/deployments', { token: alice, body });
    if (res.status !== 201) throw new Error(res.text);
    return res.body.data.deploymentId;
  }

  function post(id: string, body: unknown, options: RpcOptions = {}): Promise<CallResult> {
    const headers: Record<string, string> = { ...ACCEPT, ...options.headers };
    if (options.session) headers['mcp-session-id'] = options.session;
    const path = `/v1/mcp/${id}${options.query ?? ''}`;
    const token = options.token === undefined ? alice : options.token;
    return typeof body === 'string'
      ? t.call('POST', path, { token, rawBody: body, headers })
      : t.call('POST', path, { token, body, headers });
  }

  async function connect(id: string, clientName: string, options: RpcOptions & { protocolVersion?: string } = {}): Promise<string> {
    const res = await post(id, initialize(clientName, options.protocolVersion), options);
    expect(res.status, res.text).toBe(200);
    const session = res.headers.get('mcp-session-id');
    expect(session).toMatch(/^mcp1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const ack = await post(id, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...options, session });
    expect(ack.status).toBe(202);
    expect(ack.text).toBe('');
    return session!;
  }

  return { createDeployment, post, connect };
}

type Endpoint = ReturnType<typeof endpointOf>;

/** Alice (team plan) with her workflow in a private deployment and in one open to anonymous clients. */
interface World {
  aliceId: string;
  wf: string;
  dep: string;
  anon: string;
}

const test = serviceTest.extend<{
  endpoint: Endpoint;
  world: World;
  toolsFor: (clientName: string, options?: RpcOptions) => Promise<{ session: string; tools: any[] }>;
}>({
  endpoint: [async ({ service, alice }, use) => use(endpointOf(service, alice)), { scope: 'file' }],
  world: [
    async ({ service: t, alice, endpoint: { createDeployment } }, use) => {
      const aliceId = await userIdOf(t, alice);
      await seedPlan(t, aliceId, 'team');
      const wf = await seedWorkflow(t, aliceId, { name: 'Feature pipeline' });
      const dep = await createDeployment({ name: 'Private', workflowIds: [wf] });
      const anon = await createDeployment({ name: 'Open', workflowIds: [wf], allowAnonymous: true });
      await use({ aliceId, wf, dep, anon });
    },
    { scope: 'file' },
  ],
  /** The tools a client of this name is offered on the private deployment, and its session. */
  toolsFor: [
    async ({ endpoint: { connect, post }, world: { dep } }, use) =>
      use(async (clientName, options = {}) => {
        const session = await connect(dep, clientName, options);
        const res = await post(dep, request('tools/list'), { ...options, session });
        expect(res.status).toBe(200);
        return { session, tools: res.body.result.tools as any[] };
      }),
    { scope: 'file' },
  ],
});

function expectRpcError(res: CallResult, status: number, code: number, message: RegExp, id: number | string | null = 1) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ jsonrpc: '2.0', id, error: { code, message: expect.stringMatching(message) } });
}

/** The tool endpoint spoken to as raw JSON-RPC over HTTP: framing, errors, access, adapters. */
describe('tool endpoint (raw JSON-RPC)', () => {
  describe('lifecycle', () => {
    test('initialize answers with the server, capabilities and a signed session id', async ({ world: { dep }, endpoint: { post } }) => {
      const res = await post(dep, initialize());
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        jsonrpc: '2.0',
        id: 1,
        result: {
          protocolVersion: '2025-11-25',
          capabilities: {
            tools: { listChanged: false },
            prompts: { listChanged: false },
            resources: { subscribe: false, listChanged: false },
          },
          serverInfo: { name: 'workflow-service', title: 'Private', version: expect.any(String) },
          instructions: expect.stringContaining('Private'),
        },
      });
      expect(res.headers.get('mcp-session-id')).toMatch(/^mcp1\./);
    });

    test('negotiates 2025-06-18 and 2025-03-26 and offers the latest for anything else', async ({ world: { dep }, endpoint: { post } }) => {
      for (const [asked, given] of [
        ['2025-06-18', '2025-06-18'],
        ['2025-03-26', '2025-03-26'],
        ['2024-11-05', '2025-11-25'],
        ['1999-01-01', '2025-11-25'],
      ]) {
        const res = await post(dep, initialize('c', asked));
        expect(res.status).toBe(200);
        expect(res.body.result.protocolVersion, asked).toBe(given);
      }
    });

    test('answers ping as in spec 4.3, even without a session or an Accept header', async ({ service: t, alice, world: { dep } }) => {
      const res = await t.call('POST', `/v1/mcp/${dep}`, { token: alice, body: { jsonrpc: '2.0', method: 'ping', id: 7 } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    });

    test('answers notifications/initialized with 202 and an empty body', async ({ world: { dep }, endpoint: { connect } }) => {
      await connect(dep, 'test-client');
    });

    test('answers GET and DELETE with 405', async ({ service: t, alice, world: { dep } }) => {
      for (const method of ['GET', 'DELETE']) {
        const res = await t.call(method, `/v1/mcp/${dep}`, { token: alice, headers: { accept: 'text/event-stream' } });
        expect(res.status).toBe(405);
        expect(res.headers.get('allow')).toBe('POST');
        expect(res.body.error.message).toMatch(/POST/);
      }
    });

    test('answers concurrent requests that share a JSON-RPC id each with their own deployment, and a cancellation naming that id disturbs none', async ({
      service: t,
      world: { aliceId, dep },
      endpoint: { post, createDeployment },
    }) => {
      const other = await seedWorkflow(t, aliceId, { name: 'Release train' });
      const second = await createDeployment({ name: 'Second', workflowIds: [other] });
      const toolsOf = (res: CallResult) => (res.body.result.tools as { name: string }[]).map((tool) => tool.name).join(',');
      const [firstTools, secondTools] = [
        toolsOf(await post(dep, request('tools/list'))),
        toolsOf(await post(second, request('tools/list'))),
      ];
      expect(firstTools).not.toBe(secondTools);
      const sends = Array.from({ length: 40 }, (_, i) => {
        if (i % 10 === 9)
          return post(i % 2 ? dep : second, {
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: 1, reason: 'test' },
          });
        return post(i % 2 ? dep : second, request('tools/list', undefined, 'same'));
      });
      const answers = await Promise.all(sends);
      answers.forEach((res, i) => {
        if (i % 10 === 9) {
          expect(res.status).toBe(202);
          return;
        }
        expect(res.status, res.text).toBe(200);
        expect(res.body.id).toBe('same');
        expect(toolsOf(res)).toBe(i % 2 ? firstTools : secondTools);
      });
    });
  });

  describe('JSON-RPC errors', () => {
    test('body not JSON → -32700', async ({ world: { dep }, endpoint: { post } }) => {
      expectRpcError(await post(dep, '{"jsonrpc": "2.0", "method": '), 400, -32700, /Parse error/, null);
    });

    test('JSON that is not JSON-RPC → -32600', async ({ world: { dep }, endpoint: { post } }) => {
      expectRpcError(await post(dep, { hello: 'world' }), 400, -32600, /Invalid Request: jsonrpc must be "2.0"/, null);
      expectRpcError(await post(dep, '42'), 400, -32600, /Invalid Request/, null);
      expectRpcError(await post(dep, { jsonrpc: '2.0', id: 1 }), 400, -32600, /Invalid Request/, 1);
      expectRpcError(await post(dep, { jsonrpc: '2.0', id: null, method: 'ping' }), 400, -32600, /id must be a string or a number/, null);
      expectRpcError(await post(dep, { jsonrpc: '2.0', id: 3, method: 5 }), 400, -32600, /method must be a string/, 3);
    });

    test('a request for a served method outside the JSON-RPC envelope → -32600, whatever its params', async ({
      world: { dep },
      endpoint: { post },
    }) => {
      const envelope = /Invalid Request: not a JSON-RPC request, notification or response/;
      expectRpcError(await post(dep, { ...request('tools/list', undefined, 4), extra: true }), 400, -32600, envelope, 4);
      expectRpcError(await post(dep, { ...request('prompts/get', {}, 5), extra: true }), 400, -32600, envelope, 5);
      expectRpcError(await post(dep, request('tools/list', undefined, 1.5)), 400, -32600, envelope, 1.5);
      expectRpcError(await post(dep, request('tools/list', { _meta: { progressToken: {} } }, 6)), 400, -32600, envelope, 6);
      expectRpcError(await post(dep, request('prompts/get', { _meta: { progressToken: [] } }, 7)), 400, -32600, envelope, 7);
    });

    test('jsonrpc "1.0" → -32600 with the request id', async ({ world: { dep }, endpoint: { post } }) => {
      expectRpcError(await post(dep, { jsonrpc: '1.0', id: 9, method: 'ping' }), 400, -32600, /jsonrpc must be "2.0"/, 9);
    });

    test('a batch → -32600', async ({ world: { dep }, endpoint: { post } }) => {
      expectRpcError(
        await post(dep, [request('ping', undefined, 1), request('ping', undefined, 2)]),
        400,
        -32600,
        /batches .* are not supported/,
        null,
      );
    });

    test('an unknown method → -32601', async ({ world: { dep }, endpoint: { post } }) => {
      expectRpcError(await post(dep, request('tools/destroy', {}, 'abc')), 200, -32601, /Method not found/, 'abc');
    });

    test('params that are not an object, or miss what the method needs → -32602', async ({ world: { dep }, endpoint: { post } }) => {
      expectRpcError(
        await post(dep, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: [1] }),
        200,
        -32602,
        /params must be an object/,
      );
      expectRpcError(await post(dep, request('prompts/get', {})), 200, -32602, /Invalid params for prompts\/get: params\.name/);
      expectRpcError(
        await post(dep, request('initialize', { protocolVersion: '2025-11-25' })),
        200,
        -32602,
        /Invalid params for initialize/,
      );
    });

    test('tools/call with an unknown tool or arguments of the wrong type → -32602', async ({
      world: { dep },
      endpoint: { post, connect },
    }) => {
      const session = await connect(dep, 'test-client');
      expectRpcError(
        await post(dep, request('tools/call', { name: 'nope', arguments: {} }), { session }),
        200,
        -32602,
        /unknown tool 'nope'/,
      );
      const tools = (await post(dep, request('tools/list'), { session })).body.result.tools;
      const wrongType = await post(dep, request('tools/call', { name: tools[0].name, arguments: { task: 5 } }), { session });
      expectRpcError(wrongType, 200, -32602, /argument 'task' must be a string/);
      expect(wrongType.body.error.data.errors).toEqual([expect.objectContaining({ argument: 'task' })]);
      expectRpcError(
        await post(dep, request('tools/call', { name: tools[0].name, arguments: { force: true } }), { session }),
        200,
        -32602,
        /unknown argument 'force'/,
      );
      expectRpcError(
        await post(dep, request('tools/call', { name: tools[0].name, arguments: 'do it' }), { session }),
        200,
        -32602,
        /Invalid params for tools\/call/,
      );
    });

    test('unknown prompt → -32602, unknown resource → -32002, unknown cursor → -32602', async ({
      world: { dep },
      endpoint: { post, connect },
    }) => {
      const session = await connect(dep, 'test-client');
      expectRpcError(await post(dep, request('prompts/get', { name: 'nope' }), { session }), 200, -32602, /unknown prompt 'nope'/);
      expectRpcError(
        await post(dep, request('resources/read', { uri: 'workflow://nope/manifest' }), { session }),
        200,
        -32002,
        /Resource not found/,
      );
      expectRpcError(await post(dep, request('tools/list', { cursor: 'x' }), { session }), 200, -32602, /unknown cursor/);
    });

    test('refuses a body that is not sent as JSON (415) and an unsupported MCP-Protocol-Version (400)', async ({
      world: { dep },
      endpoint: { post },
    }) => {
      const res = await post(dep, JSON.stringify(request('ping')), { headers: { 'content-type': 'text/plain' } });
      expectRpcError(res, 415, -32600, /Content-Type: application\/json/, null);
      expectRpcError(
        await post(dep, request('ping'), { headers: { 'mcp-protocol-version': '2024-11-05' } }),
        400,
        -32600,
        /unsupported MCP-Protocol-Version/,
      );
    });

    test('an adapter query parameter that names no adapter → 400', async ({ world: { dep }, endpoint: { post } }) => {
      expectRpcError(await post(dep, initialize(), { query: '?adapter=adapter_nine' }), 400, -32602, /unknown adapter 'adapter_nine'/);
    });
  });

  describe('access (spec 5.3)', () => {
    test('a private deployment without a token → 401 with WWW-Authenticate, exactly as an unknown one', async ({
      world: { dep },
      endpoint: { post },
    }) => {
      const res = await post(dep, initialize(), { token: null });
      expectRpcError(res, 401, -32001, /needs a credential unless its deployment allows anonymous use/, null);
      // The challenge points an OAuth client at the endpoint's protected resource metadata (RFC 9728).
      expect(res.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="http://127.0.0.1:4000/.well-known/oauth-protected-resource/v1/mcp/${dep}", scope="mcp"`,
      );
      // Without a credential, an unknown id gets the same answer: nothing says which deployments exist.
      const unknown = await post('dep_unknown00000000000', initialize(), { token: null });
      expect(unknown.status).toBe(401);
      expect(unknown.text).toBe(res.text);
      expect(unknown.headers.get('www-authenticate')).toBe(
        'Bearer resource_metadata="http://127.0.0.1:4000/.well-known/oauth-protected-resource/v1/mcp/dep_unknown00000000000", scope="mcp"',
      );
      const bad = await post(dep, initialize(), { token: 'not-a-token' });
      expect(bad.status).toBe(401);
      expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", resource_metadata="[^"]+"/);
    });

    test("another user's token → 404, as for an unknown deployment", async ({ bob, world: { dep }, endpoint: { post } }) => {
      const res = await post(dep, initialize(), { token: bob });
      expectRpcError(res, 404, -32004, new RegExp(`deployment '${dep}' was not found`), null);
      expectRpcError(await post('dep_unknown', initialize()), 404, -32004, /not found/, null);
    });

    test('an anonymous deployment needs no token and ignores one', async ({ bob, world: { anon }, endpoint: { post } }) => {
      expect((await post(anon, initialize(), { token: null })).status).toBe(200);
      expect((await post(anon, initialize(), { token: bob })).status).toBe(200);
      expect((await post(anon, initialize(), { token: 'garbage' })).status).toBe(200);
    });

    test('a deleted deployment answers 404 right after deletion', async ({
      service: t,
      alice,
      world: { wf },
      endpoint: { post, connect, createDeployment },
    }) => {
      const id = await createDeployment({ name: 'Short-lived', workflowIds: [wf] });
      const session = await connect(id, 'claude-code');
      expect((await post(id, request('tools/list'), { session })).status).toBe(200);
      expect((await t.call('DELETE', `/v1/deployments/${id}`, { token: alice })).status).toBe(200);
      expectRpcError(await post(id, request('tools/list', undefined, 2), { session }), 404, -32004, /not found/, null);
    });

    test('an inactive deployment → 403 saying it is inactive; activating restores it', async ({
      service: t,
      alice,
      world: { wf },
      endpoint: { post, connect, createDeployment },
    }) => {
      const id = await createDeployment({ name: 'Paused', workflowIds: [wf] });
      const session = await connect(id, 'test-client');
      await t.call('POST', `/v1/deployments/${id}/deactivate`, { token: alice });
      const res = await post(id, request('tools/list'), { session });
      // Checked with access, before the body is read: like 401 and 404 it carries no request id.
      expectRpcError(res, 403, -32003, /is inactive/, null);
      expect(res.body.error.data).toMatchObject({ code: 'FORBIDDEN', reason: 'deployment_inactive' });
      await t.call('POST', `/v1/deployments/${id}/activate`, { token: alice });
      expect((await post(id, request('tools/list'), { session })).status).toBe(200);
    });

    test('a disabled adapter is refused at initialize and on later requests', async ({
      service: t,
      alice,
      world: { wf },
      endpoint: { post, connect, createDeployment },
    }) => {
      const id = await createDeployment({ name: 'No Cursor', workflowIds: [wf], enabledAdapters: ['adapter_one', 'adapter_three'] });
      const res = await post(id, initialize('cursor-vscode'));
      expectRpcError(res, 403, -32003, /adapter 'adapter_two' \(chosen from clientInfo.name\) is disabled/);
      expect(res.body.error.data).toMatchObject({
        reason: 'adapter_disabled',
        adapter: 'adapter_two',
        enabledAdapters: ['adapter_one', 'adapter_three'],
      });
      const viaQuery = await post(id, initialize('cursor-vscode'), { query: '?adapter=adapter_one' });
      expect(viaQuery.status).toBe(200);
      const session = await connect(id, 'claude-code');
      await t.call('POST', `/v1/deployments/${id}/adapters`, { token: alice, body: { adapter: 'adapter_one', enabled: false } });
      expectRpcError(await post(id, request('tools/list'), { session }), 403, -32003, /adapter 'adapter_one' is disabled/);
    });

    test('a session id of another deployment, or a forged one, → 404 so the client initializes again', async ({
      world: { dep, anon },
      endpoint: { post, connect },
    }) => {
      const session = await connect(anon, 'test-client');
      expectRpcError(await post(dep, request('tools/list'), { session }), 404, -32001, /Session not found/);
      const [p, payload] = session.split('.');
      const forged = `${p}.${payload}.${'A'.repeat(43)}`;
      expectRpcError(await post(anon, request('tools/list'), { session: forged }), 404, -32001, /Session not found/);
      expectRpcError(await post(anon, request('tools/list'), { session: 'garbage' }), 404, -32001, /Session not found/);
    });
  });

  describe('adapters and rendering', () => {
    test('maps clientInfo.name to the adapter and remembers it through the session id', async ({
      toolsFor,
      world: { dep },
      endpoint: { post },
    }) => {
      for (const [client, adapter, count] of [
        ['claude-code', 'adapter_one', 1],
        ['Claude Code', 'adapter_one', 1],
        ['cursor-vscode', 'adapter_two', 1],
        ['Cursor', 'adapter_two', 1],
        ['my-agent', 'adapter_three', 5],
      ] as const) {
        const { session, tools } = await toolsFor(client);
        expect(tools, client).toHaveLength(count);
        const call = await post(dep, request('tools/call', { name: tools[0].name, arguments: { task: 'Add pagination' } }), { session });
        expect(call.status).toBe(200);
        expect(call.body.result.structuredContent.adapter, client).toBe(adapter);
        expect(call.body.result.content[0].text).toContain(`Adapter \`${adapter}\``);
      }
    });

    test('takes the adapter query parameter over clientInfo.name', async ({ toolsFor, world: { dep }, endpoint: { post } }) => {
      const { session, tools } = await toolsFor('claude-code', { query: '?adapter=adapter_three' });
      expect(tools).toHaveLength(5);
      const call = await post(dep, request('tools/call', { name: tools[0].name, arguments: {} }), {
        session,
        query: '?adapter=adapter_three',
      });
      expect(call.body.result.structuredContent.adapter).toBe('adapter_three');
    });

    test('offers stable, unique, valid names in a stable order', async ({ toolsFor }) => {
      const a = await toolsFor('my-agent');
      const b = await toolsFor('my-agent');
      expect(a.tools.map((x) => x.name)).toEqual(b.tools.map((x) => x.name));
      expect(new Set(a.tools.map((x) => x.name)).size).toBe(a.tools.length);
      for (const tool of a.tools) {
        expect(tool.name).toMatch(NAME);
        expect(tool.annotations).toMatchObject({ readOnlyHint: true });
      }
    });

    test('leaves 2025-06-18 fields out of a 2025-03-26 session', async ({ toolsFor, world: { dep }, endpoint: { post } }) => {
      const { session, tools } = await toolsFor('claude-code', { protocolVersion: '2025-03-26' } as RpcOptions);
      expect(tools[0].outputSchema).toBeUndefined();
      expect(tools[0].title).toBeUndefined();
      const call = await post(dep, request('tools/call', { name: tools[0].name, arguments: {} }), { session });
      expect(call.body.result.structuredContent).toBeUndefined();
      expect(call.body.result.content[0].type).toBe('text');
      const modern = await toolsFor('claude-code');
      expect(modern.tools[0].outputSchema).toBeDefined();
    });

    test('honours the library entry: isActive false and adapters it does not enable hide a workflow', async ({
      service: t,
      world: { aliceId, wf },
      endpoint: { post, connect, createDeployment },
    }) => {
      const second = await seedWorkflow(t, aliceId, { name: 'Second' });
      const id = await createDeployment({ name: 'Two', workflowIds: [wf, second] });
      const names = async (client: string) => {
        const session = await connect(id, client);
        return (await post(id, request('prompts/list'), { session })).body.result.prompts.length;
      };
      expect(await names('claude-code')).toBe(2);
      await updateLibraryEntry(t, aliceId, second, { enabledAdapters: ['adapter_three'] });
      expect(await names('claude-code')).toBe(1);
      expect(await names('my-agent')).toBe(2);
      await updateLibraryEntry(t, aliceId, second, { isActive: false });
      expect(await names('my-agent')).toBe(1);
    });

    test('serves a subscribed workflow at the library entry version, manifest included', async ({
      service: t,
      world: { aliceId },
      endpoint: { post, connect, createDeployment },
    }) => {
      const carolTok = await t.token('carol@example.com');
      const carolId = await userIdOf(t, carolTok);
      const v1 = {
        manifest_version: '1.0',
        name: 'old',
        intent: 'Version one intent.',
        steps: [{ id: 'only', name: 'Only step', action: 'code_agent' }],
      };
      const v2 = { ...v1, name: 'new', intent: 'Version two intent.' };
      const shared = await seedWorkflow(t, carolId, {
        name: 'Shared',
        visibility: 'public',
        versions: [
          { version: '1.0.0', manifest: v1 },
          { version: '2.0.0', manifest: v2 },
        ],
      });
      await seedSubscription(t, aliceId, shared, { version: '1.0.0' });
      const id = await createDeployment({ name: 'Subscribed', workflowIds: [shared] });
      const session = await connect(id, 'my-agent');
      const call = await post(
        id,
        request('tools/call', { name: (await post(id, request('tools/list'), { session })).body.result.tools[0].name, arguments: {} }),
        { session },
      );
      expect(call.body.result.structuredContent).toMatchObject({ workflowId: shared, version: '1.0.0', intent: 'Version one intent.' });
      const resources = (await post(id, request('resources/list'), { session })).body.result.resources;
      expect(resources).toEqual([
        expect.objectContaining({ uri: `workflow://${shared}/manifest`, mimeType: 'application/json' }),
        expect.objectContaining({ uri: expect.stringMatching(/^skill:\/\/shared-[0-9a-f]{8}\/SKILL\.md$/), mimeType: 'text/markdown' }),
      ]);
      const read = await post(id, request('resources/read', { uri: resources[0].uri }), { session });
      expect(JSON.parse(read.body.result.contents[0].text)).toEqual(v1);
    });
  });

  test('serves a workflow changed through PUT at its new version on the next call, on the same connection', async ({
    service: t,
    alice,
    endpoint: { post, connect, createDeployment },
  }) => {
    const created = await createWorkflow(t, alice, { name: 'Changing' });
    const id = await createDeployment({ name: 'Changing', workflowIds: [created.workflowId] });
    const session = await connect(id, 'my-agent');
    const tool = (await post(id, request('tools/list'), { session })).body.result.tools[0].name;
    const callTool = async () =>
      (await post(id, request('tools/call', { name: tool, arguments: { task: 'Add a flag' } }), { session })).body.result.structuredContent;
    expect(await callTool()).toMatchObject({ version: '1.0.0', intent: sampleManifest().intent });
    const intent = 'Ship the flag behind a kill switch';
    const put = await t.call('PUT', `/v1/workflows/${created.workflowId}`, {
      token: alice,
      body: { name: 'Changing', manifest: sampleManifest({ intent }) },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.data.currentVersion).toBe('1.0.1');
    expect(await callTool()).toMatchObject({ version: '1.0.1', intent });
  });

  test('counts a connection once per caller, adapter and day, in usage and in the list', async ({
    service: t,
    alice,
    bob,
    world: { wf },
    endpoint: { post, createDeployment },
  }) => {
    const id = await createDeployment({ name: 'Counted', workflowIds: [wf] });
    // Alice: two claude-code initializes are one connection on adapter_one; cursor-vscode and x open one each.
    for (const client of ['claude-code', 'claude-code', 'Claude Code', 'cursor-vscode', 'x']) await post(id, initialize(client));
    // Pings and refused requests do not count; later requests of a counted connection add nothing.
    await post(id, request('ping'));
    await post(id, request('tools/list'), { query: '?adapter=adapter_one' });
    await post(id, initialize(), { token: bob });
    const usage = (await t.call('GET', `/v1/deployments/${id}/usage?period=day`, { token: alice })).body.data;
    expect(usage.connections.total).toBe(3);
    expect(usage.byAdapter).toEqual(countsByAdapter({ adapter_one: 1, adapter_two: 1, adapter_three: 1 }));
    expect(usage.byDay).toEqual([{ date: new Date().toISOString().slice(0, 10), count: 3 }]);
    const listed = (await t.call('GET', `/v1/deployments/${id}`, { token: alice })).body.data.usage;
    expect(listed.connectionsThisMonth).toBe(3);
    expect(Date.now() - Date.parse(listed.lastConnectedAt)).toBeLessThan(60_000);
  });
});
