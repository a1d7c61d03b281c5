import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { MCP_ACCEPT } from '../helpers/mcp.js';
import { authorize, createBrowser, exchangeCode, tokenRequest } from '../helpers/oauth.js';
import { seedWorkflow, userIdOf } from '../helpers/seed.js';
import { serviceTestWith } from '../helpers/service-test.js';

/**
 * Connected apps (the OAuth clients a user let into a tool endpoint): listed on REST and GraphQL
 * to their user alone, disconnected one by one, all revoked with the account.
 */
const ORIGIN = 'http://127.0.0.1';
const OWNER = 'owner@example.com';

const endpointOf = (id: string) => new URL(`${ORIGIN}/v1/mcp/${id}`);

/** What the file's tests share: the owner's token and a deployment of theirs, and the calls they make of the service. */
async function seed(t: TestApp) {
  const token = await t.token(OWNER);
  const wf = await seedWorkflow(t, await userIdOf(t, token), { name: 'Feature pipeline' });
  const dep: string = (await t.call('POST', '/v1/deployments', { token, body: { name: 'Connected', workflowIds: [wf] } })).body.data
    .deploymentId;

  const rpc = (id: string, accessToken: string) =>
    t.call('POST', `/v1/mcp/${id}`, {
      token: accessToken,
      headers: MCP_ACCEPT,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    });

  /** The owner connects a client to `resource` and gets its tokens. */
  async function tokensFor(resource: string) {
    const authorization = await authorize(t.app, createBrowser(t.app, ORIGIN), ORIGIN, { resource, email: OWNER });
    const exchanged = await exchangeCode(t.app, ORIGIN, authorization, { resource });
    expect(exchanged.status).toBe(200);
    return { clientId: authorization.clientId, ...(exchanged.body as { access_token: string; refresh_token: string }) };
  }

  return { token, dep, rpc, tokensFor };
}

const test = serviceTestWith({
  MCP_SESSION_SECRET: 'a-test-session-secret-of-at-least-32-characters',
  PUBLIC_BASE_URL: `${ORIGIN}/v1`,
}).extend<{ world: Awaited<ReturnType<typeof seed>> }>({
  world: [async ({ service }, use) => use(await seed(service)), { scope: 'file' }],
});

describe('connected apps', () => {
  test('lists the clients the user connected, and disconnecting one stops its tokens at once (REST and GraphQL)', async ({
    service: t,
    world: { token, dep, rpc, tokensFor },
  }) => {
    const issued = await tokensFor(endpointOf(dep).href);
    const list = await t.call('GET', '/v1/connected-apps', { token });
    expect(list.status).toBe(200);
    const app = list.body.data.find((a: { clientId: string }) => a.clientId === issued.clientId);
    expect(app).toMatchObject({
      clientName: 'Raw client',
      deploymentIds: [dep],
      connectedAt: expect.any(String),
      expiresAt: expect.any(String),
    });
    const gql = await t.graphql('{ connectedApps { connectedAppId clientName deploymentIds } }', {}, token);
    expect(gql.body.data.connectedApps).toContainEqual({
      connectedAppId: app.connectedAppId,
      clientName: 'Raw client',
      deploymentIds: [dep],
    });

    // Another user sees none of them and cannot disconnect them.
    const other = await t.token('other@example.com');
    expect((await t.call('GET', '/v1/connected-apps', { token: other })).body.data).toEqual([]);
    const foreign = await t.call('DELETE', `/v1/connected-apps/${app.connectedAppId}`, { token: other });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.message).toMatch(/connected app/);
    expect((await rpc(dep, issued.access_token)).status).toBe(200);

    const gone = await t.call('DELETE', `/v1/connected-apps/${app.connectedAppId}`, { token });
    expect(gone.status).toBe(200);
    expect(gone.body.data).toEqual({ connectedAppId: app.connectedAppId, deleted: true });
    expect((await rpc(dep, issued.access_token)).status).toBe(401);
    expect(
      (
        await tokenRequest(t.app, ORIGIN, {
          grant_type: 'refresh_token',
          refresh_token: issued.refresh_token,
          client_id: issued.clientId,
        })
      ).body.error,
    ).toBe('invalid_grant');
    expect(
      (await t.call('GET', '/v1/connected-apps', { token })).body.data.map((a: { connectedAppId: string }) => a.connectedAppId),
    ).not.toContain(app.connectedAppId);
    const again = await t.graphql(
      'mutation($id: String!) { disconnectApp(connectedAppId: $id) { deleted } }',
      { id: app.connectedAppId },
      token,
    );
    expect(again.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  test('deleting the account revokes every token of its connected clients', async ({ service: t, world: { dep, rpc } }) => {
    const email = 'leaving@example.com';
    const leaving = await t.token(email);
    const wf = await seedWorkflow(t, await userIdOf(t, leaving), { name: 'Leaving pipeline' });
    const own = (await t.call('POST', '/v1/deployments', { token: leaving, body: { name: 'Leaving', workflowIds: [wf] } })).body.data
      .deploymentId as string;
    const authorization = await authorize(t.app, createBrowser(t.app, ORIGIN), ORIGIN, { resource: endpointOf(own).href, email });
    const issued = (await exchangeCode(t.app, ORIGIN, authorization)).body;
    expect((await rpc(own, issued.access_token)).status).toBe(200);
    // Elsewhere the token is recognised (and refused as bound to another endpoint) ...
    expect((await rpc(dep, issued.access_token)).body.error.message).toMatch(/issued for the tool endpoint of deployment/);
    expect((await t.call('DELETE', '/v1/users/me', { token: leaving })).status).toBe(200);
    // ... after the deletion it no longer exists (its deployment is gone too).
    const after = await rpc(dep, issued.access_token);
    expect(after.status).toBe(401);
    expect(after.body.error.message).toMatch(/unknown, expired or revoked/);
    const refreshed = await tokenRequest(t.app, ORIGIN, {
      grant_type: 'refresh_token',
      refresh_token: issued.refresh_token,
      client_id: authorization.clientId,
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
  });
});
