import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect } from 'vitest';
import { rateBudget } from '../../src/limits/plans.js';
import type { TestApp } from '../helpers/app.js';
import { initializeRequest, MCP_ACCEPT } from '../helpers/mcp.js';
import { seedWorkflow, userIdOf } from '../helpers/seed.js';
import { authorizationUrl, authorize, createBrowser, exchangeCode, REDIRECT_URI } from '../helpers/oauth.js';
import { serviceTestWith } from '../helpers/service-test.js';

/**
 * Charge before work: a request anyone can send without a credential is charged to its client
 * address before its handler runs, so a request refused for the address's budget has no effect —
 * no token rotated, no row written, no outbound connection.
 */
const ORIGIN = 'http://127.0.0.1';
const OWNER = 'charge-owner@example.com';

/** Connections made to the metadata host below. */
let metadataConnections = 0;

/**
 * The service with the address budget enforced; the owner's deployment; and a loopback port
 * standing in for a client ID metadata document host: it counts connections and closes them.
 */
const test = serviceTestWith({
  RATE_LIMIT_MODE: 'enforce',
  TRUST_PROXY_HOPS: '1',
  PUBLIC_BASE_URL: `${ORIGIN}/v1`,
  MCP_SESSION_SECRET: 'a-test-session-secret-of-at-least-32-characters',
  OAUTH_CLIENT_METADATA_LOOPBACK: 'on',
}).extend<{ deploymentId: string; metadataHost: Server }>({
  deploymentId: [
    async ({ service: t }, use) => {
      const token = await t.token(OWNER);
      const userId = await userIdOf(t, token);
      const workflowId = await seedWorkflow(t, userId, { name: 'Charged pipeline' });
      const created = await t.call('POST', '/v1/deployments', { token, body: { name: 'Charged', workflowIds: [workflowId] } });
      await use(created.body.data.deploymentId);
    },
    { scope: 'file' },
  ],
  metadataHost: [
    // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its first parameter
    async ({}, use) => {
      const metadataHost = createServer((socket) => {
        metadataConnections += 1;
        socket.destroy();
      });
      await new Promise<void>((resolve) => metadataHost.listen(0, '127.0.0.1', resolve));
      await use(metadataHost);
      metadataHost.close();
    },
    { scope: 'file' },
  ],
});

describe('charge before work (address budget, enforced)', () => {
  const from = (address: string) => ({ 'x-forwarded-for': address });

  /** Spends the whole minute of `address` on unknown routes (30 on the free rate). */
  async function exhaust(t: TestApp, address: string): Promise<void> {
    for (let i = 0; i < 30; i += 1) {
      const res = await t.call('GET', `/no-such-route-${i}`, { headers: from(address) });
      expect(res.status).toBe(404);
    }
    expect((await t.call('GET', '/no-such-route', { headers: from(address) })).status).toBe(429);
  }

  /** Uses up an address's budget of the sign-in pages, or of the token endpoint (docs/plans.md, "Rate limits"). */
  async function exhaustOwn(t: TestApp, address: string, budget: 'sign-in' | 'token'): Promise<void> {
    const spend = () =>
      budget === 'sign-in'
        ? t.call('GET', '/sign-in', { headers: from(address) })
        : t.call('POST', '/oauth/token', {
            headers: { ...from(address), 'content-type': 'application/x-www-form-urlencoded' },
            rawBody: 'grant_type=refresh_token&refresh_token=unknown&client_id=unknown',
          });
    for (let i = 0; i < rateBudget('free', 'session').perMinute; i += 1) expect((await spend()).status).not.toBe(429);
    expect((await spend()).status).toBe(429);
  }

  function post(t: TestApp, path: string, form: Record<string, string>, headers: Record<string, string>) {
    return t.app.fetch(
      new Request(`${ORIGIN}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(form).toString(),
      }),
    );
  }

  test("an IDE's refresh refused while its address is over the limit leaves its refresh token working", async ({
    service: t,
    deploymentId,
  }) => {
    const resource = `${ORIGIN}/v1/mcp/${deploymentId}`;
    const browser = createBrowser(t.app, ORIGIN);
    const authorization = await authorize(t.app, browser, ORIGIN, { resource, email: OWNER });
    const issued = await exchangeCode(t.app, ORIGIN, authorization, { resource });
    expect(issued.status).toBe(200);
    const refresh = { grant_type: 'refresh_token', refresh_token: issued.body.refresh_token as string, client_id: authorization.clientId };

    // The IDE sits behind a NAT whose address someone else has used up (the token endpoint's budget).
    await exhaustOwn(t, '198.51.100.7', 'token');
    const refused = await post(t, '/oauth/token', refresh, from('198.51.100.7'));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    // An OAuth error a client can read (RFC 6749 5.2 shape), not the API envelope.
    expect(await refused.json()).toMatchObject({ error: 'temporarily_unavailable', error_description: expect.stringMatching(/retry in/) });

    // Nothing was rotated: the token the IDE holds still works, once, and what it gives works too.
    const retried = await post(t, '/oauth/token', refresh, from('198.51.100.8'));
    expect(retried.status).toBe(200);
    const rotated = (await retried.json()) as { access_token: string; refresh_token: string };
    expect(rotated.refresh_token).not.toBe(refresh.refresh_token);
    const call = await t.call('POST', `/v1/mcp/${deploymentId}`, {
      token: rotated.access_token,
      headers: MCP_ACCEPT,
      body: initializeRequest({ clientName: 'claude-code' }),
    });
    expect(call.status).toBe(200);
  });

  test('a refused registration stores no client', async ({ service: t }) => {
    const prisma = t.database.db.prisma;
    const clients = () => prisma.oAuthRecord.count({ where: { kind: 'Client' } });
    await exhaust(t, '198.51.100.20');
    const before = await clients();
    for (let i = 0; i < 6; i += 1) {
      const res = await t.app.fetch(
        new Request(`${ORIGIN}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...from('198.51.100.20') },
          body: JSON.stringify({ client_name: `Flood ${i}`, redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
        }),
      );
      expect(res.status).toBe(429);
      expect(await res.json()).toMatchObject({ error: 'temporarily_unavailable' });
    }
    expect(await clients()).toBe(before);
    // From an address with budget left, the same registration is stored.
    const allowed = await t.call('POST', '/oauth/register', {
      headers: from('198.51.100.21'),
      body: { client_name: 'Allowed', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
    });
    expect(allowed.status).toBe(201);
    expect(await clients()).toBe(before + 1);
  });

  test('refused authorization requests write no row and open no outbound connection', async ({
    service: t,
    deploymentId,
    metadataHost,
  }) => {
    const prisma = t.database.db.prisma;
    const metadataDocument = `https://127.0.0.1:${(metadataHost.address() as AddressInfo).port}/client.json`;
    const resource = `${ORIGIN}/v1/mcp/${deploymentId}`;
    const authorizeWith = (address: string) =>
      t.app.fetch(
        new Request(authorizationUrl(ORIGIN, { client_id: metadataDocument, resource }), { headers: from(address), redirect: 'manual' }),
      );
    // Allowed, the request does its work: the service fetches the client's metadata document (over
    // http on loopback with the test-only setting).
    const allowed = await authorizeWith('198.51.100.30');
    await allowed.body?.cancel();
    expect(metadataConnections).toBeGreaterThan(0);

    await exhaustOwn(t, '198.51.100.31', 'sign-in');
    const connectionsBefore = metadataConnections;
    const rowsBefore = await prisma.oAuthRecord.count();
    for (let i = 0; i < 10; i += 1) {
      const res = await authorizeWith('198.51.100.31');
      expect(res.status).toBe(429);
      await res.body?.cancel();
    }
    expect(metadataConnections).toBe(connectionsBefore);
    expect(await prisma.oAuthRecord.count()).toBe(rowsBefore);
  });

  test('a refused page load in a browser is a page of the service saying when to retry; a program gets JSON', async ({ service: t }) => {
    await exhaust(t, '198.51.100.40');
    await exhaustOwn(t, '198.51.100.40', 'sign-in');
    const page = await t.call('GET', '/sign-in?return=%2Fworkflows', {
      headers: { ...from('198.51.100.40'), accept: 'text/html,application/xhtml+xml', 'sec-fetch-mode': 'navigate' },
    });
    expect(page.status).toBe(429);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const retryAfter = Number(page.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(page.text).toContain('<h1>Too many requests</h1>');
    expect(page.text).toContain(`in <strong>${retryAfter} second`);
    expect(page.text).toContain(`<meta http-equiv="refresh" content="${retryAfter}">`);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");

    const program = await t.call('GET', '/v1/workflows', { headers: from('198.51.100.40') });
    expect(program.status).toBe(429);
    expect(program.body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED', details: { window: 'minute' } } });
    const graphql = await t.call('POST', '/graphql', { headers: from('198.51.100.40'), body: { query: '{ me { userId } }' } });
    expect(graphql.status).toBe(429);
    expect(graphql.body.errors[0].extensions.code).toBe('RATE_LIMITED');
  });

  test('requests with a credential are charged to the user before their handler, and a failed one to the address', async ({
    service: t,
  }) => {
    const token = await t.token('charged-user@example.com', { plan: 'free' });
    // Over the address's budget, a signed-in user is still served: their own budget pays.
    await exhaust(t, '198.51.100.50');
    const served = await t.call('GET', '/v1/users/me', { token, headers: from('198.51.100.50') });
    expect(served.status).toBe(200);
    expect(served.headers.get('x-ratelimit-limit')).toBe('30');
    // A credential that fails is counted against the address, and refused there once it is over.
    const failed = await t.call('GET', '/v1/users/me', { token: 'wfk_not-a-real-key', headers: from('198.51.100.50') });
    expect(failed.status).toBe(429);
    const fresh = await t.call('GET', '/v1/users/me', { token: 'wfk_not-a-real-key', headers: from('198.51.100.51') });
    expect(fresh.status).toBe(401);
    expect(fresh.headers.get('x-ratelimit-remaining')).toBe('29');
  });
});
