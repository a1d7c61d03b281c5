import { describe, expect } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startTestApp, type CallResult, type TestApp } from '../helpers/app.js';
import { seedWorkflow, userIdOf } from '../helpers/seed.js';
import { initializeRequest, MCP_ACCEPT } from '../helpers/mcp.js';
import { serviceTestWith } from '../helpers/service-test.js';

const ALLOWED = 'https://inspector.example.com';
const INIT = initializeRequest({ clientName: 'browser', protocolVersion: '2025-11-25' });

/** An initialize request to a tool endpoint of `t` (alice's deployment unless told otherwise), and the connections it counted. */
function endpointOf(t: TestApp, alice: string, dep: string) {
  const post = (origin: string | null, token: string | null = alice, id = dep) =>
    t.call('POST', `/v1/mcp/${id}`, { token, body: INIT, headers: { ...MCP_ACCEPT, ...(origin === null ? {} : { origin }) } });

  async function connections(): Promise<number> {
    const res = await t.call('GET', `/v1/deployments/${dep}/usage?period=day`, { token: alice });
    expect(res.status, res.text).toBe(200);
    return res.body.data.connections.total as number;
  }

  return { post, connections };
}

/** A service that allows two origins besides its own; alice's deployment "Browser". */
const test = serviceTestWith({
  MCP_ALLOWED_ORIGINS: ` ${ALLOWED} , http://tools.example.org:8080`,
  PUBLIC_BASE_URL: 'https://api.example.net/v1',
}).extend<{ dep: string; endpoint: ReturnType<typeof endpointOf> }>({
  dep: [
    async ({ service: t, alice }, use) => {
      const wf = await seedWorkflow(t, await userIdOf(t, alice), { name: 'Origin checked' });
      const res = await t.call('POST', '/v1/deployments', { token: alice, body: { name: 'Browser', workflowIds: [wf] } });
      await use(res.body.data.deploymentId);
    },
    { scope: 'file' },
  ],
  endpoint: [async ({ service, alice, dep }, use) => use(endpointOf(service, alice, dep)), { scope: 'file' }],
});

function expectRefused(res: CallResult, origin: string) {
  expect(res.status, res.text).toBe(403);
  expect(res.body).toEqual({
    jsonrpc: '2.0',
    id: null,
    error: { code: -32003, message: expect.stringContaining(origin), data: { code: 'FORBIDDEN', reason: 'origin_not_allowed', origin } },
  });
  expect(res.headers.get('access-control-allow-origin')).toBeNull();
  expect(res.headers.get('mcp-session-id')).toBeNull();
}

/**
 * The tool endpoint's Origin check (MCP Streamable HTTP: servers validate Origin against DNS
 * rebinding and answer 403 to an origin that is present and not allowed) and the CORS answers
 * that let an allowed browser client read the session id.
 */
describe('tool endpoint origins', () => {
  test('serves clients that send no Origin (IDE agents) without CORS headers', async ({ endpoint: { post } }) => {
    const res = await post(null);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeTruthy();
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  test.for([
    ALLOWED,
    'http://tools.example.org:8080',
    'https://api.example.net',
    'http://localhost:6274',
    'http://127.0.0.1:5173',
    'http://[::1]:3000',
  ])('serves the allowed origin %s and lets it read the session id', async (origin, { endpoint: { post } }) => {
    const res = await post(origin);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    expect(res.headers.get('access-control-expose-headers')).toContain('Mcp-Session-Id');
    expect(res.headers.get('vary')).toContain('Origin');
    expect(res.headers.get('mcp-session-id')).toBeTruthy();
  });

  test.for([
    'https://evil.example',
    'https://inspector.example.com:8443',
    'http://inspector.example.com',
    'https://localhost.evil.example',
    'null',
    'not an origin',
  ])(
    'refuses the origin %s with 403 before any other check, and records nothing',
    async (origin, { alice, endpoint: { post, connections } }) => {
      const before = await connections();
      expectRefused(await post(origin), origin);
      // Before the token and the deployment are looked at: no 401, no 404.
      expectRefused(await post(origin, null), origin);
      expectRefused(await post(origin, alice, 'no-such-deployment'), origin);
      expect(await connections()).toBe(before);
    },
  );

  test('answers a preflight from an allowed origin without a token, and refuses one from another', async ({ service: t, dep }) => {
    const preflight = (origin: string) =>
      t.call('OPTIONS', `/v1/mcp/${dep}`, {
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, mcp-session-id',
        },
      });
    const ok = await preflight(ALLOWED);
    expect(ok.status).toBe(204);
    expect(ok.text).toBe('');
    expect(ok.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(ok.headers.get('access-control-allow-methods')).toBe('POST');
    for (const h of ['authorization', 'content-type', 'mcp-session-id', 'mcp-protocol-version'])
      expect(ok.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(h);
    expect(ok.headers.get('access-control-max-age')).toBe('600');
    expectRefused(await preflight('https://evil.example'), 'https://evil.example');
  });

  test('keeps OPTIONS that is not a preflight a 405, and puts the CORS headers on errors too', async ({
    service: t,
    dep,
    endpoint: { post },
  }) => {
    const plain = await t.call('OPTIONS', `/v1/mcp/${dep}`);
    expect(plain.status).toBe(405);
    expect(plain.headers.get('allow')).toBe('POST');
    const badToken = await post(ALLOWED, 'not-a-token');
    expect(badToken.status).toBe(401);
    expect(badToken.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(badToken.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
  });

  test('allows every origin with *, and refuses a malformed list at start-up', async ({ service: t }) => {
    const open = await startTestApp({ env: { MCP_ALLOWED_ORIGINS: '*' }, database: t.database });
    try {
      // Past the origin check: access is what the answer is about (without a token, an unknown deployment answers as a private one).
      const res = await open.call('POST', '/v1/mcp/no-such-deployment', {
        body: INIT,
        headers: { ...MCP_ACCEPT, origin: 'https://anything.example' },
      });
      expect(res.status, res.text).toBe(401);
      expect(res.headers.get('access-control-allow-origin')).toBe('https://anything.example');
    } finally {
      await open.close();
    }
    for (const bad of ['https://ok.example/path', 'ftp://files.example', 'inspector.example.com', 'null']) {
      expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: bad }), bad).toThrow(ConfigError);
    }
    expect(loadConfig({ MCP_ALLOWED_ORIGINS: 'https://a.example, http://b.example:81' }).mcpAllowedOrigins).toEqual([
      'https://a.example',
      'http://b.example:81',
    ]);
  });
});
