import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentService, seedDeployment, type AgentService } from '../agents/service.js';
import { initializeRequest, MCP_ACCEPT } from '../helpers/mcp.js';
import { answerConsent, createBrowser, MemoryOAuthProvider, REDIRECT_URI, toConsent } from '../helpers/oauth.js';
import { serviceTestWith } from '../helpers/service-test.js';

/**
 * Both loopback names of one machine's service: an endpoint reached as `localhost` or as
 * `127.0.0.1` is told, in its 401 and its protected resource metadata, the form it was reached by
 * (the metadata's resource must be the URL the client was given). Only forms of the configured
 * address: a Host header names no other host into the answers. Over real HTTP (node:http), since
 * the Host header is what decides.
 */

/** A raw request over the network with the Host header as given (fetch would set its own). */
function raw(
  port: number,
  options: { method: string; path: string; host: string; body?: string; headers?: Record<string, string> },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: options.method, path: options.path, headers: { host: options.host, ...options.headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('an endpoint reached by either loopback name', () => {
  let service: AgentService;
  let port: number;
  let deploymentId: string;
  const initialize = JSON.stringify(initializeRequest({ clientName: 'claude-code' }));

  // Starts its own service, as the agent CLIs reach it: listening on a loopback port over node:http,
  // with PUBLIC_BASE_URL naming that port. The fixture's service is called in process, and the Host
  // header that real HTTP carries is what this describe tests.
  beforeAll(async () => {
    service = await startAgentService();
    port = Number(new URL(service.origin).port);
    deploymentId = (await seedDeployment(service.t)).deploymentId;
  });
  afterAll(async () => {
    await service?.close();
  });

  const challengeOf = async (host: string) => {
    const res = await raw(port, {
      method: 'POST',
      path: `/v1/mcp/${deploymentId}`,
      host,
      body: initialize,
      headers: { 'content-type': 'application/json', ...MCP_ACCEPT },
    });
    expect(res.status).toBe(401);
    return String(res.headers['www-authenticate']);
  };

  for (const name of ['127.0.0.1', 'localhost']) {
    it(`as ${name}: the 401 and the protected resource metadata name the ${name} form`, async () => {
      const origin = `http://${name}:${port}`;
      expect(await challengeOf(`${name}:${port}`)).toBe(
        `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/v1/mcp/${deploymentId}", scope="mcp"`,
      );
      // Fetched as a client does, by the address the challenge gave.
      const prm = await fetch(`${origin}/.well-known/oauth-protected-resource/v1/mcp/${deploymentId}`);
      expect(prm.status).toBe(200);
      expect(await prm.json()).toMatchObject({
        resource: `${origin}/v1/mcp/${deploymentId}`,
        // One authorization server, the configured issuer, whichever form the endpoint was reached by.
        authorization_servers: [service.origin],
        resource_documentation: `${origin}/v1/reference`,
      });
    });
  }

  it('a Host header that is not one of its forms changes nothing: no other host, no other port', async () => {
    const configured = `${service.origin}/.well-known/oauth-protected-resource/v1/mcp/${deploymentId}`;
    for (const host of [
      'evil.example',
      `evil.example:${port}`,
      `localhost:${port + 1}`,
      'localhost',
      `127.0.0.2:${port}`,
      `LOCALHOST.:${port}`,
    ]) {
      expect(await challengeOf(host), host).toBe(`Bearer resource_metadata="${configured}", scope="mcp"`);
      const prm = await raw(port, { method: 'GET', path: `/.well-known/oauth-protected-resource/v1/mcp/${deploymentId}`, host });
      expect(JSON.parse(prm.text).resource, host).toBe(`${service.origin}/v1/mcp/${deploymentId}`);
    }
  });

  it('the SDK client given the localhost form connects through OAuth, and its connection works by either name', async () => {
    const endpoint = new URL(`http://localhost:${port}/v1/mcp/${deploymentId}`);
    const provider = new MemoryOAuthProvider({ client_name: 'Claude Code' });
    const first = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
    await expect(new Client({ name: 'claude-code', version: '1' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    const authorizationUrl = provider.authorizationUrl!;
    // The authorization server is the configured issuer; the resource is the form the client was given.
    expect(authorizationUrl.origin).toBe(service.origin);
    expect(authorizationUrl.searchParams.get('resource')).toBe(endpoint.href);

    const browser = createBrowser(service.t.app, service.origin);
    const consent = await toConsent(browser, authorizationUrl.href, 'owner@example.com');
    const back = await answerConsent(browser, consent, 'confirm');
    expect(back.html).toContain(endpoint.href);
    const redirect = new URL(back.url);
    expect(`${redirect.origin}${redirect.pathname}`).toBe(REDIRECT_URI);
    await first.finishAuth(redirect.searchParams.get('code')!);

    const client = new Client({ name: 'claude-code', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
    // The token is the deployment's, whichever loopback name carries it.
    const other = await fetch(`${service.origin}/v1/mcp/${deploymentId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${provider.saved!.access_token}`, 'content-type': 'application/json', ...MCP_ACCEPT },
      body: initialize,
    });
    expect(other.status).toBe(200);
  });
});

/** A service configured with a public https address. */
const publicTest = serviceTestWith({ PUBLIC_BASE_URL: 'https://workflows.example.com/v1' });

describe('a service configured with a public address', () => {
  publicTest('answers with that address whatever the Host header says, loopback names included', async ({ service: t }) => {
    const { deploymentId } = await seedDeployment(t);
    for (const origin of ['http://localhost', 'http://127.0.0.1', 'http://evil.example']) {
      const res = await t.app.fetch(
        new Request(`${origin}/v1/mcp/${deploymentId}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...MCP_ACCEPT },
          body: JSON.stringify(initializeRequest({ clientName: 'claude-code' })),
        }),
      );
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain(
        `resource_metadata="https://workflows.example.com/.well-known/oauth-protected-resource/v1/mcp/${deploymentId}"`,
      );
      const prm = await t.app.fetch(new Request(`${origin}/.well-known/oauth-protected-resource/v1/mcp/${deploymentId}`));
      expect(((await prm.json()) as { resource: string }).resource).toBe(`https://workflows.example.com/v1/mcp/${deploymentId}`);
    }
  });
});
