import {
  classifyInboundRequest,
  createMcpHandler,
  McpServer,
  type AuthInfo,
  type McpRequestContext,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { ALL_VERSIONS, MODERN_VERSION } from '../../src/mcp/protocol.js';
import {
  authInfoFor,
  CallContext,
  callContextOf,
  Dispatch,
  isPlainModernRequest,
  ModernDispatch,
  modernEdgeOf,
} from '../../src/mcp/sdk-bridge.js';

/**
 * The SDK behaviour the endpoint's bridge to the SDK (src/mcp/sdk-bridge.ts) relies on, each pinned
 * against the installed SDK with a bare server: an SDK release that changes one fails here.
 */

const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'pin-client', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** The authInfo the endpoint hands the SDK for a request of deployment `who`. */
const authFor = (who: string): AuthInfo =>
  authInfoFor(
    new CallContext({
      deploymentName: who,
      deploymentDescription: null,
      adapter: 'adapter_one',
      protocolVersion: MODERN_VERSION,
      workflows: async () => [],
    }),
  );

/** Who the handler was called for, read as the endpoint's handlers read their call context. */
const whoOf = (ctx: ServerContext | McpRequestContext) => callContextOf(ctx).conn.deploymentName;

function bareServer(): McpServer {
  const mcp = new McpServer({ name: 'pinned', version: '1.0.0' }, { supportedProtocolVersions: ALL_VERSIONS });
  mcp.server.registerCapabilities({ tools: { listChanged: false } });
  mcp.server.setRequestHandler('tools/list', async (_req, ctx) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { tools: [{ name: whoOf(ctx), inputSchema: { type: 'object' as const } }] };
  });
  return mcp;
}

const headersOf = (h: Record<string, string>) => ({ get: (name: string) => h[name] ?? null });

describe('the 2025-era transport (Dispatch)', () => {
  it('is wired by connect() before connect settles, so requests can follow at once', () => {
    const dispatch = new Dispatch();
    void bareServer().connect(dispatch);
    expect(typeof dispatch.onmessage).toBe('function');
  });

  it("hands each request's authInfo to its handler and sends each answer back to its own request, client ids restored", async () => {
    const dispatch = new Dispatch();
    void bareServer().connect(dispatch);
    const answers = await Promise.all([
      dispatch.request({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, authFor('first')),
      dispatch.request({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, authFor('second')),
      dispatch.request({ jsonrpc: '2.0', id: 'x', method: 'tools/list' }, authFor('third')),
    ]);
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'first', inputSchema: { type: 'object' } }] } },
      { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'second', inputSchema: { type: 'object' } }] } },
      { jsonrpc: '2.0', id: 'x', result: { tools: [{ name: 'third', inputSchema: { type: 'object' } }] } },
    ]);
  });

  it("lets a server replace the SDK's initialize handler (the shared server answers each deployment's identity)", async () => {
    const mcp = bareServer();
    mcp.server.setRequestHandler('initialize', async (_req, ctx) => ({
      protocolVersion: '2025-06-18',
      capabilities: {},
      serverInfo: { name: whoOf(ctx), version: '1.0.0' },
    }));
    const dispatch = new Dispatch();
    void mcp.connect(dispatch);
    const params = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } };
    const answer = await dispatch.request({ jsonrpc: '2.0', id: 2, method: 'initialize', params }, authFor('deployment-a'));
    expect(answer).toMatchObject({ id: 2, result: { serverInfo: { name: 'deployment-a' } } });
  });

  it("refuses a handler's call context where the endpoint handed none in", async () => {
    const dispatch = new Dispatch();
    void bareServer().connect(dispatch);
    const bare: AuthInfo = { token: '', clientId: '', scopes: [], extra: { workflowServiceCall: { conn: {} } } };
    const answer = await dispatch.request({ jsonrpc: '2.0', id: 8, method: 'tools/list' }, bare);
    expect(answer).toMatchObject({ id: 8, error: { message: expect.stringContaining('without its call context') } });
  });

  it('answers an unknown method with the JSON-RPC error, through send()', async () => {
    const dispatch = new Dispatch();
    void bareServer().connect(dispatch);
    const answer = await dispatch.request({ jsonrpc: '2.0', id: 7, method: 'no/such' } as never, authFor('a'));
    expect(answer).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'Method not found' } });
  });
});

describe('the 2026-07-28 transport (ModernDispatch)', () => {
  it('binds its server to 2026-07-28: answers carry resultType, the cache fields and the server information in _meta', async () => {
    const modern = new ModernDispatch();
    void bareServer().connect(modern);
    const answer = modern.request({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: META } }, authFor('m'));
    expect(answer).not.toBeNull();
    expect(await answer).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: {
        tools: [{ name: 'm', inputSchema: { type: 'object' } }],
        resultType: 'complete',
        ttlMs: 0,
        cacheScope: 'private',
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'pinned', version: '1.0.0' } },
      },
    });
  });

  it('gives back (null) a request the protocol layer refuses while it is handed over, before any handler runs', () => {
    const modern = new ModernDispatch();
    void bareServer().connect(modern);
    const refused = [
      { jsonrpc: '2.0', id: 4, method: 'tools/list', params: {} }, // no _meta
      { jsonrpc: '2.0', id: 5, method: 'no/such', params: { _meta: META } }, // no handler
      { jsonrpc: '2.0', id: 6, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN_VERSION } } }, // no clientInfo
    ];
    for (const message of refused) expect(modern.request(message as never, authFor('m')), JSON.stringify(message)).toBeNull();
  });
});

describe("the SDK's classification of a request (modernEdgeOf)", () => {
  const message = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } };

  it('classifies a plain 2026-07-28 request as modern, for this revision, and it is one the long-lived servers answer', () => {
    const edge = modernEdgeOf(headersOf({ 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/list' }), message);
    expect(edge?.route).toMatchObject({
      kind: 'modern',
      messageKind: 'request',
      classification: { era: 'modern', revision: MODERN_VERSION },
    });
    expect(isPlainModernRequest(edge!, message as never)).toBe(true);
  });

  it('leaves a request whose headers disagree with its body to the SDK handler (a refusal with its HTTP status)', () => {
    const edge = modernEdgeOf(headersOf({ 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/call' }), message);
    expect(edge?.route).toMatchObject({ kind: 'reject', httpStatus: 400 });
    expect(isPlainModernRequest(edge!, message as never)).toBe(false);
  });

  it("gives the SDK's own outcome for every kind of request, the first time and when remembered, with the request's own message", () => {
    const plain = { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/call', 'mcp-name': 'plan_a' };
    const call = (params: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'plan_a', arguments: { task: 'x' }, _meta: META, ...params },
      ...extra,
    });
    const cases: [string, Record<string, string>, Record<string, unknown>][] = [
      ['plain', plain, call({})],
      ['other arguments and id', plain, { ...call({ arguments: { task: 'y', more: [1, 2] } }), id: 'abc' }],
      ['another client', plain, call({ _meta: { ...META, 'io.modelcontextprotocol/clientInfo': { name: 'other', version: '2' } } })],
      ['an envelope missing a key', plain, call({ _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN_VERSION } })],
      ['an envelope of the wrong type', plain, call({ _meta: { ...META, 'io.modelcontextprotocol/clientInfo': 'me' } })],
      ['a progress token of the wrong type', plain, call({ _meta: { ...META, progressToken: { no: 1 } } })],
      ['another revision claimed', plain, call({ _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } })],
      ['the version header disagrees', { ...plain, 'mcp-protocol-version': '2099-01-01' }, call({})],
      ['an empty version header', { ...plain, 'mcp-protocol-version': '' }, call({})],
      ['no version header', { 'mcp-method': 'tools/call' }, call({})],
      ['the method header disagrees', { ...plain, 'mcp-method': 'tools/list' }, call({})],
      ['the method header padded', { ...plain, 'mcp-method': ' tools/call ' }, call({})],
      ['the name header disagrees', { ...plain, 'mcp-name': 'plan_b' }, call({})],
      ['no method header', { 'mcp-protocol-version': MODERN_VERSION }, call({})],
      ['an initialize with the envelope', { ...plain, 'mcp-method': 'initialize' }, { ...call({}), method: 'initialize' }],
      ['a header and no _meta', plain, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'plan_a' } }],
      ['a key a request may not have', plain, call({}, { extra: true })],
      ['an id beyond safe integers', plain, { ...call({}), id: 2 ** 60 }],
      ['a fractional id', plain, { ...call({}), id: 1.5 }],
      ['params that are not an object', plain, { ...call({}), params: [1] }],
      ['a notification', plain, { jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: META } }],
      ['a response', plain, { jsonrpc: '2.0', id: 7, result: { _meta: META } }],
      ['another jsonrpc', plain, { ...call({}), jsonrpc: '1.0' }],
    ];
    for (const [what, headerValues, body] of cases) {
      const sdk = classifyInboundRequest({
        httpMethod: 'POST',
        protocolVersionHeader: headerValues['mcp-protocol-version'],
        mcpMethodHeader: headerValues['mcp-method'],
        mcpNameHeader: headerValues['mcp-name'],
        body,
      });
      for (const time of ['first', 'remembered', 'remembered, another id']) {
        const copy = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
        if (time === 'remembered, another id' && typeof copy.id === 'number') copy.id += 1000;
        const expected = time === 'remembered, another id' && sdk.kind === 'modern' ? { ...sdk, message: copy } : sdk;
        const route = modernEdgeOf(headersOf(headerValues), copy)?.route ?? { kind: 'legacy' };
        expect(route, `${what} (${time})`).toEqual(expected.kind === 'legacy' ? { kind: 'legacy' } : expected);
        if (route.kind === 'modern') expect(route.message, `${what} (${time}): the request's own message`).toBe(copy);
      }
    }
  });

  it('treats a request without _meta and without the 2026-07-28 header as 2025 era', () => {
    expect(modernEdgeOf(headersOf({}), { jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBeUndefined();
    expect(
      modernEdgeOf(headersOf({ 'mcp-protocol-version': '2025-11-25' }), { jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    ).toBeUndefined();
  });
});

describe("the SDK's handler (createMcpHandler), for what the long-lived servers do not answer", () => {
  it('passes the authInfo given to fetch() to the server factory', async () => {
    let seen = '';
    const handler = createMcpHandler(
      (ctx: McpRequestContext) => {
        seen = whoOf(ctx);
        return bareServer();
      },
      { legacy: 'reject' },
    );
    const body = { jsonrpc: '2.0', id: 9, method: 'tools/list', params: { _meta: META } };
    const request = new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN_VERSION,
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify(body),
    });
    const response = await handler.fetch(request, { authInfo: authFor('via-handler'), parsedBody: body });
    expect(response.status).toBe(200);
    expect(seen).toBe('via-handler');
    expect(JSON.parse(await response.text())).toMatchObject({ id: 9, result: { tools: [{ name: 'via-handler' }] } });
  });
});
