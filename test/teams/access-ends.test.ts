import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { connectClient, initializeRequest, MCP_ACCEPT } from '../helpers/mcp.js';
import { answerConsent, connectWithOAuth, createBrowser, MemoryOAuthProvider, toConsent } from '../helpers/oauth.js';
import { serviceTestWith } from '../helpers/service-test.js';
import { seedTeamDeploymentWorld, type TeamDeploymentWorld } from './deployment-world.js';

/**
 * A member removed from a team loses its deployments at once: the API keys and OAuth connections
 * of theirs that opened the team's deployment stop on their next request, answered as for a
 * deployment they cannot see, and REST and GraphQL answer 404. Driven with the official SDK
 * clients (v2, and v1 for the 2025 revisions and OAuth), connected before the removal.
 */
const ORIGIN = 'http://127.0.0.1';

const test = serviceTestWith({ PUBLIC_BASE_URL: `${ORIGIN}/v1` });

describe('when a member is removed, access to the team’s deployments ends at once', () => {
  const endpoint = (id: string) => new URL(`${ORIGIN}/v1/mcp/${id}`);
  const initialize = (t: TestApp, id: string, token: string) =>
    t.call('POST', `/v1/mcp/${id}`, { token, headers: MCP_ACCEPT, body: initializeRequest({ clientName: 'claude-code' }) });

  /** What the endpoint answers `token` for a deployment its holder cannot see: the outsider's answer. */
  async function expectAnsweredAsUnseen(t: TestApp, w: TeamDeploymentWorld, token: string) {
    const removed = await initialize(t, w.deploymentId, token);
    const outsider = await initialize(t, w.deploymentId, w.tokens.outsider);
    expect(outsider.status).toBe(404);
    expect(removed.status).toBe(outsider.status);
    expect(removed.body).toEqual(outsider.body);
  }

  async function removeMember(t: TestApp, w: TeamDeploymentWorld) {
    const res = await t.call('DELETE', `/v1/teams/${w.teamId}/members/${w.ids.member}`, { token: w.tokens.owner });
    expect(res.status, res.text).toBe(200);
  }

  /** Calls the deployment's one tool (the team's workflow). */
  async function callTheTool(
    client: {
      listTools(): Promise<{ tools: { name: string }[] }>;
      callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<Record<string, unknown>>;
    },
    w: TeamDeploymentWorld,
  ) {
    const { tools } = await client.listTools();
    const result = await client.callTool({ name: tools[0]!.name, arguments: { task: 'Rotate the logs' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ workflowId: w.teamWorkflow });
  }

  test('stops the member’s API key on the next request of clients already connected (v2 and v1 SDK)', async ({ service: t }) => {
    const w = await seedTeamDeploymentWorld(t, 'key');
    const made = await t.call('POST', '/v1/api-keys', {
      token: w.tokens.member,
      body: { name: 'Team IDE', scope: 'mcp', deploymentIds: [w.deploymentId] },
    });
    expect(made.status, made.text).toBe(201);
    const key = made.body.data.secret as string;
    const modern = await connectClient(t.app, w.deploymentId, 'claude-code', { token: key });
    const legacy = new V1Client({ name: 'claude-code', version: '1.0.0' });
    await legacy.connect(
      new V1Transport(endpoint(w.deploymentId), {
        fetch: (url, init) => t.app.fetch(new Request(url, init)),
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    await callTheTool(modern, w);
    await callTheTool(legacy, w);

    await removeMember(t, w);

    await expect(modern.listTools()).rejects.toThrow();
    await expect(legacy.callTool({ name: 'anything', arguments: {} })).rejects.toThrow();
    await expectAnsweredAsUnseen(t, w, key);
    await expectAnsweredAsUnseen(t, w, w.tokens.member);
    // REST and GraphQL: the deployment and the team's list are not found.
    for (const path of [
      `/v1/deployments/${w.deploymentId}`,
      `/v1/deployments/${w.deploymentId}/usage`,
      `/v1/deployments?teamId=${w.teamId}`,
    ]) {
      const res = await t.call('GET', path, { token: w.tokens.member });
      expect(res.status, `${path} ${res.text}`).toBe(404);
    }
    const gql = await t.graphql('query($id: String!) { deployment(deploymentId: $id) { name } }', { id: w.deploymentId }, w.tokens.member);
    expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    // Nor can a new key be made for it.
    const again = await t.call('POST', '/v1/api-keys', {
      token: w.tokens.member,
      body: { name: 'Again', deploymentIds: [w.deploymentId] },
    });
    expect(again.status, again.text).toBe(400);
    await modern.close();
    await legacy.close();
  });

  test('stops the member’s OAuth connection on the next request of the connected client', async ({ service: t }) => {
    const w = await seedTeamDeploymentWorld(t, 'oauth');
    const provider = new MemoryOAuthProvider();
    const ide = createBrowser(t.app, ORIGIN);
    const { client } = await connectWithOAuth(t.app, endpoint(w.deploymentId), provider, async (auth) =>
      answerConsent(ide, await toConsent(ide, auth.href, 'oauth-member@example.com'), 'confirm'),
    );
    await callTheTool(client, w);

    await removeMember(t, w);

    await expect(client.listTools()).rejects.toThrow();
    await expectAnsweredAsUnseen(t, w, provider.saved!.access_token);
    // A new connection is refused at consent: the deployment is no longer theirs to connect to.
    const again = await toConsent(createBrowser(t.app, ORIGIN), provider.authorizationUrl!.href, 'oauth-member@example.com');
    expect(await again.response.text()).not.toContain('Connect an application?');
    await client.close();
  });

  test('ends the creator’s access too: a team deployment is the team’s, not its creator’s', async ({ service: t }) => {
    const w = await seedTeamDeploymentWorld(t, 'creator');
    // Ownership and billing go to the admin, and the creator leaves.
    expect(
      (await t.call('PATCH', `/v1/teams/${w.teamId}/members/${w.ids.admin}`, { token: w.tokens.owner, body: { role: 'owner' } })).status,
    ).toBe(200);
    expect(
      (await t.call('PUT', `/v1/teams/${w.teamId}/billing-owner`, { token: w.tokens.owner, body: { userId: w.ids.admin } })).status,
    ).toBe(200);
    const client = await connectClient(t.app, w.deploymentId, 'claude-code', { token: w.tokens.owner });
    await callTheTool(client, w);
    expect((await t.call('DELETE', `/v1/teams/${w.teamId}/members/${w.ids.owner}`, { token: w.tokens.owner })).status).toBe(200);
    await expect(client.listTools()).rejects.toThrow();
    await expectAnsweredAsUnseen(t, w, w.tokens.owner);
    expect((await t.call('GET', `/v1/deployments/${w.deploymentId}`, { token: w.tokens.owner })).status).toBe(404);
    expect((await t.call('GET', `/v1/deployments/${w.deploymentId}`, { token: w.tokens.member })).status).toBe(200);
    await client.close();
  });
});
