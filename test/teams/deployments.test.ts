import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { connectClient, initializeRequest, MCP_ACCEPT } from '../helpers/mcp.js';
import { seedPlan, seedWorkflow } from '../helpers/seed.js';
import { serviceTestWith } from '../helpers/service-test.js';
import { createTeamDeployment, seedTeamDeploymentWorld, seedTeamWorkflow, type TeamDeploymentWorld } from './deployment-world.js';
import { addMember, createTeam } from './helpers.js';

const test = serviceTestWith({ PUBLIC_BASE_URL: 'http://127.0.0.1/v1' }).extend<{ world: TeamDeploymentWorld }>({
  world: [async ({ service: t }, use) => use(await seedTeamDeploymentWorld(t)), { scope: 'file' }],
});

/** Team deployments through REST, GraphQL and the tool endpoint (docs/teams.md, "Team deployments"). */
describe('team deployments', () => {
  const gql = (t: TestApp, token: string, query: string, variables: Record<string, unknown> = {}) => t.graphql(query, variables, token);

  test('is created by owners and admins; a member is refused, an outsider and an unknown team are not found', async ({
    service: t,
    world: w,
  }) => {
    const made = await t.call('POST', '/v1/deployments', {
      token: w.tokens.admin,
      body: { name: 'By the admin', teamId: w.teamId, workflowIds: [w.teamWorkflow] },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body.data).toMatchObject({ teamId: w.teamId, name: 'By the admin' });
    const body = { name: 'Nope', teamId: w.teamId, workflowIds: [w.teamWorkflow] };
    const byMember = await t.call('POST', '/v1/deployments', { token: w.tokens.member, body });
    expect(byMember.status, byMember.text).toBe(403);
    expect(byMember.body.error).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'team_role' } });
    const byOutsider = await t.call('POST', '/v1/deployments', { token: w.tokens.outsider, body });
    const unknown = await t.call('POST', '/v1/deployments', { token: w.tokens.owner, body: { ...body, teamId: 'team_unknown' } });
    for (const res of [byOutsider, unknown]) {
      expect(res.status, res.text).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect(byOutsider.body.error.message.replace(w.teamId, 'X')).toBe(unknown.body.error.message.replace('team_unknown', 'X'));
    for (const teamId of [42, '', ['x'], { id: w.teamId }]) {
      const wrong = await t.call('POST', '/v1/deployments', { token: w.tokens.owner, body: { ...body, teamId } });
      expect(wrong.status, wrong.text).toBe(400);
      expect(wrong.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  test('is created through GraphQL as well, with the same refusals', async ({ service: t, world: w }) => {
    const mutation = `mutation($teamId: String, $ids: [String!]!) {
      createDeployment(name: "Through GraphQL", teamId: $teamId, workflowIds: $ids) { deploymentId teamId workflows { workflowId available } } }`;
    const made = await gql(t, w.tokens.owner, mutation, { teamId: w.teamId, ids: [w.teamWorkflow] });
    expect(made.body.errors, made.text).toBeUndefined();
    expect(made.body.data.createDeployment).toMatchObject({
      teamId: w.teamId,
      workflows: [{ workflowId: w.teamWorkflow, available: true }],
    });
    const byMember = await gql(t, w.tokens.member, mutation, { teamId: w.teamId, ids: [w.teamWorkflow] });
    expect(byMember.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'team_role' } });
    const byOutsider = await gql(t, w.tokens.outsider, mutation, { teamId: w.teamId, ids: [w.teamWorkflow] });
    expect(byOutsider.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  test('bundles the team’s and public workflows, never another team’s or a member’s private ones', async ({ service: t, world: w }) => {
    const otherTeam = await createTeam(t, w.tokens.outsider, 'Other');
    const theirs = await seedTeamWorkflow(t, w.ids.outsider, otherTeam, 'Their pipeline');
    const publicOne = await seedWorkflow(t, w.ids.outsider, { name: 'Public pipeline', visibility: 'public' });
    const ownPrivate = await seedWorkflow(t, w.ids.owner, { name: 'Own private' });
    const ok = await createTeamDeployment(t, w.tokens.owner, { teamId: w.teamId, workflowIds: [w.teamWorkflow, publicOne] });
    const read = await gql(
      t,
      w.tokens.member,
      `query($id: String!) { deployment(deploymentId: $id) { workflows { workflowId available isOwned } } }`,
      { id: ok },
    );
    expect(read.body.data.deployment.workflows).toEqual([
      { workflowId: w.teamWorkflow, available: true, isOwned: true },
      { workflowId: publicOne, available: true, isOwned: false },
    ]);
    for (const bad of [theirs, ownPrivate, 'wf_unknown']) {
      const res = await t.call('POST', '/v1/deployments', {
        token: w.tokens.owner,
        body: { name: 'Bad', teamId: w.teamId, workflowIds: [w.teamWorkflow, bad] },
      });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.details).toMatchObject({ invalidIds: [bad] });
      const put = await t.call('PUT', `/v1/deployments/${w.deploymentId}`, { token: w.tokens.admin, body: { workflowIds: [bad] } });
      expect(put.status, put.text).toBe(400);
    }
    // A team's private workflow is used through the team's deployments, not in a member's personal one (its author's included).
    const personal = await t.call('POST', '/v1/deployments', {
      token: w.tokens.admin,
      body: { name: 'Personal', workflowIds: [w.teamWorkflow] },
    });
    expect(personal.status, personal.text).toBe(400);
    expect(personal.body.error.details).toMatchObject({ invalidIds: [w.teamWorkflow] });
  });

  test('is listed and read by every member; outsiders get 404, and personal lists keep to personal deployments', async ({
    service: t,
    world: w,
  }) => {
    for (const token of [w.tokens.owner, w.tokens.admin, w.tokens.member]) {
      const list = await t.call('GET', `/v1/deployments?teamId=${w.teamId}`, { token });
      expect(list.status, list.text).toBe(200);
      expect(list.body.data.map((d: { deploymentId: string }) => d.deploymentId)).toContain(w.deploymentId);
      expect(list.body.data.every((d: { teamId: string }) => d.teamId === w.teamId)).toBe(true);
      const one = await t.call('GET', `/v1/deployments/${w.deploymentId}`, { token });
      expect(one.status, one.text).toBe(200);
      expect((await t.call('GET', `/v1/deployments/${w.deploymentId}/usage`, { token })).status).toBe(200);
    }
    const personal = await t.call('GET', '/v1/deployments', { token: w.tokens.owner });
    expect(personal.body.data.map((d: { deploymentId: string }) => d.deploymentId)).not.toContain(w.deploymentId);
    for (const path of [
      `/v1/deployments?teamId=${w.teamId}`,
      `/v1/deployments/${w.deploymentId}`,
      `/v1/deployments/${w.deploymentId}/usage`,
    ]) {
      const res = await t.call('GET', path, { token: w.tokens.outsider });
      expect(res.status, `${path} ${res.text}`).toBe(404);
    }
    const q = await gql(t, w.tokens.member, `query($teamId: String) { deployments(teamId: $teamId) { data { deploymentId teamId } } }`, {
      teamId: w.teamId,
    });
    expect(q.body.data.deployments.data).toContainEqual({ deploymentId: w.deploymentId, teamId: w.teamId });
    const outsider = await gql(t, w.tokens.outsider, `query($teamId: String) { deployments(teamId: $teamId) { data { deploymentId } } }`, {
      teamId: w.teamId,
    });
    expect(outsider.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  test('leaves a team’s workflows and deployments out of their author’s counts, on every face', async ({ service: t, world: w }) => {
    // The admin wrote the team's workflow; the owner made the team's deployment. Each has a personal one too.
    await seedWorkflow(t, w.ids.admin, { name: 'Admin’s own' });
    const ownersOwn = await seedWorkflow(t, w.ids.owner, { name: 'Owner’s own' });
    await createTeamDeployment(t, w.tokens.owner, { name: 'Owner’s own', workflowIds: [ownersOwn] });
    for (const token of [w.tokens.owner, w.tokens.admin]) {
      const workflows = (await t.call('GET', '/v1/workflows?limit=100', { token })).body.data.length as number;
      const deployments = (await t.call('GET', '/v1/deployments?limit=100', { token })).body.data.length as number;
      const counts = { workflowCount: workflows, deploymentCount: deployments };
      expect((await t.call('GET', '/v1/users/me', { token })).body.data).toMatchObject(counts);
      // The one statement of the user's counts, then Prisma's relation counts (a field beyond them).
      for (const query of ['{ me { workflowCount deploymentCount } }', '{ me { displayName workflowCount deploymentCount } }']) {
        const res = await gql(t, token, query);
        expect(res.body.errors, query).toBeUndefined();
        expect(res.body.data.me, query).toMatchObject(counts);
      }
    }
  });

  test('is changed by owners and admins only: a member gets 403 team_role on every change', async ({ service: t, world: w }) => {
    const renamed = await t.call('PUT', `/v1/deployments/${w.deploymentId}`, { token: w.tokens.admin, body: { name: 'Renamed by admin' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.data.name).toBe('Renamed by admin');
    for (const [method, path, body] of [
      ['PUT', `/v1/deployments/${w.deploymentId}`, { name: 'By member' }],
      ['PUT', `/v1/deployments/${w.deploymentId}`, { teamId: null }],
      ['POST', `/v1/deployments/${w.deploymentId}/adapters`, { adapter: 'adapter_one', enabled: false }],
      ['POST', `/v1/deployments/${w.deploymentId}/deactivate`, undefined],
      ['DELETE', `/v1/deployments/${w.deploymentId}`, undefined],
    ] as const) {
      const res = await t.call(method, path, { token: w.tokens.member, body });
      expect(res.status, `${method} ${path} ${res.text}`).toBe(403);
      expect(res.body.error.details.reason).toBe('team_role');
      const outsider = await t.call(method, path, { token: w.tokens.outsider, body });
      expect(outsider.status, `${method} ${path} ${outsider.text}`).toBe(404);
    }
    const gqlMember = await gql(t, w.tokens.member, `mutation($id: String!) { deleteDeployment(deploymentId: $id) { deleted } }`, {
      id: w.deploymentId,
    });
    expect(gqlMember.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'team_role' } });
    expect((await t.call('GET', `/v1/deployments/${w.deploymentId}`, { token: w.tokens.member })).body.data.name).toBe('Renamed by admin');
  });

  test('serves every member with their own key: list the tools, call the team workflow written by another member', async ({
    service: t,
    world: w,
  }) => {
    const client = await connectClient(t.app, w.deploymentId, 'claude-code', { token: w.tokens.member });
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1);
    const result = await client.callTool({ name: tools[0]!.name, arguments: { task: 'Add a health check' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ workflowId: w.teamWorkflow, version: '1.0.0' });
    await client.close();
    await expect(connectClient(t.app, w.deploymentId, 'claude-code', { token: w.tokens.outsider })).rejects.toThrow();
  });

  test('moves a personal deployment in (owner/admin of the team) and out (team owners only)', async ({ service: t, world: w }) => {
    const publicOwn = await seedWorkflow(t, w.ids.admin, { name: 'Shared by the admin', visibility: 'public' });
    const personal = await createTeamDeployment(t, w.tokens.admin, { workflowIds: [publicOwn] });
    const memberOwn = await createTeamDeployment(t, w.tokens.member, {
      workflowIds: [await seedWorkflow(t, w.ids.member, { name: 'Mine' })],
    });
    const byMember = await t.call('PUT', `/v1/deployments/${memberOwn}`, { token: w.tokens.member, body: { teamId: w.teamId } });
    expect(byMember.status, byMember.text).toBe(403);
    expect(byMember.body.error.details.reason).toBe('team_role');
    const notTheirs = await t.call('PUT', `/v1/deployments/${personal}`, { token: w.tokens.owner, body: { teamId: w.teamId } });
    expect(notTheirs.status, notTheirs.text).toBe(404);
    const elsewhere = await t.call('PUT', `/v1/deployments/${personal}`, { token: w.tokens.admin, body: { teamId: 'team_unknown' } });
    expect(elsewhere.status, elsewhere.text).toBe(404);
    const wrongType = await t.call('PUT', `/v1/deployments/${personal}`, { token: w.tokens.admin, body: { teamId: 7 } });
    expect(wrongType.status, wrongType.text).toBe(400);

    const moved = await t.call('PUT', `/v1/deployments/${personal}`, { token: w.tokens.admin, body: { teamId: w.teamId } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data.teamId).toBe(w.teamId);
    expect((await t.call('GET', `/v1/deployments/${personal}`, { token: w.tokens.member })).status).toBe(200);

    const outByAdmin = await t.call('PUT', `/v1/deployments/${personal}`, { token: w.tokens.admin, body: { teamId: null } });
    expect(outByAdmin.status, outByAdmin.text).toBe(403);
    expect(outByAdmin.body.error.details.reason).toBe('team_role');
    const out = await t.call('PUT', `/v1/deployments/${personal}`, { token: w.tokens.owner, body: { teamId: null } });
    expect(out.status, out.text).toBe(200);
    expect(out.body.data.teamId).toBeNull();
    // Now the owner's personal deployment: the creator and the members no longer see it.
    expect((await t.call('GET', `/v1/deployments/${personal}`, { token: w.tokens.owner })).status).toBe(200);
    for (const token of [w.tokens.admin, w.tokens.member]) {
      expect((await t.call('GET', `/v1/deployments/${personal}`, { token })).status).toBe(404);
    }
    const gqlMove = await gql(
      t,
      w.tokens.owner,
      `mutation($id: String!, $teamId: String) { updateDeployment(deploymentId: $id, teamId: $teamId) { teamId } }`,
      {
        id: personal,
        teamId: w.teamId,
      },
    );
    expect(gqlMove.body.data.updateDeployment.teamId).toBe(w.teamId);
  });

  test('moves a deployment in only with workflows a team deployment may bundle: a private personal one is refused, not shared', async ({
    service: t,
    world: w,
  }) => {
    const privateOwn = await seedWorkflow(t, w.ids.admin, { name: 'Only mine' });
    const personal = await createTeamDeployment(t, w.tokens.admin, { workflowIds: [privateOwn] });
    const refused = await t.call('PUT', `/v1/deployments/${personal}`, { token: w.tokens.admin, body: { teamId: w.teamId } });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error.details.invalidIds).toEqual([privateOwn]);
    expect((await t.call('GET', `/v1/deployments/${personal}`, { token: w.tokens.member })).status).toBe(404);
    const withTeamWorkflows = await t.call('PUT', `/v1/deployments/${personal}`, {
      token: w.tokens.admin,
      body: { teamId: w.teamId, workflowIds: [w.teamWorkflow] },
    });
    expect(withTeamWorkflows.status, withTeamWorkflows.text).toBe(200);
    expect(withTeamWorkflows.body.data.teamId).toBe(w.teamId);
  });

  test('writes deployment.created, updated, moved and deleted in the team’s log', async ({ service: t, world: w }) => {
    const id = await createTeamDeployment(t, w.tokens.owner, { teamId: w.teamId, workflowIds: [w.teamWorkflow] });
    expect((await t.call('PUT', `/v1/deployments/${id}`, { token: w.tokens.admin, body: { description: 'Changed' } })).status).toBe(200);
    expect((await t.call('DELETE', `/v1/deployments/${id}`, { token: w.tokens.admin })).status).toBe(200);
    const log = await t.call('GET', `/v1/teams/${w.teamId}/audit-log?limit=100`, { token: w.tokens.owner });
    const of = (action: string) =>
      log.body.data.filter((e: { action: string; targetId: string }) => e.action === action && e.targetId === id);
    expect(of('deployment.created')).toEqual([expect.objectContaining({ actorUserId: w.ids.owner, targetType: 'deployment' })]);
    expect(of('deployment.updated')).toEqual([expect.objectContaining({ actorUserId: w.ids.admin, details: { fields: ['description'] } })]);
    expect(of('deployment.deleted')).toEqual([expect.objectContaining({ actorUserId: w.ids.admin })]);
    const moves = log.body.data.filter((e: { action: string }) => e.action === 'deployment.moved');
    expect(moves.map((e: { details: { to: string | null } }) => e.details.to)).toEqual(expect.arrayContaining([w.teamId, null]));
  });

  test('lets members make keys for the team’s deployment; the keys are in the team’s log, made and revoked', async ({
    service: t,
    world: w,
  }) => {
    const made = await t.call('POST', '/v1/api-keys', {
      token: w.tokens.member,
      body: { name: 'Team key', scope: 'mcp', deploymentIds: [w.deploymentId] },
    });
    expect(made.status, made.text).toBe(201);
    const keyId = made.body.data.keyId as string;
    const install = await t.call('POST', `/v1/deployments/${w.deploymentId}/install/key`, { token: w.tokens.member, body: {} });
    expect(install.status, install.text).toBe(201);
    expect((await t.call('DELETE', `/v1/api-keys/${keyId}`, { token: w.tokens.member })).status).toBe(200);
    const refused = await t.call('POST', '/v1/api-keys', {
      token: w.tokens.outsider,
      body: { name: 'Not theirs', deploymentIds: [w.deploymentId] },
    });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error.details.fields[0].field).toBe('deploymentIds[0]');
    const log = await t.call('GET', `/v1/teams/${w.teamId}/audit-log?limit=100`, { token: w.tokens.admin });
    const ofKey = log.body.data.filter((e: { targetId: string }) => e.targetId === keyId);
    expect(ofKey.map((e: { action: string }) => e.action)).toEqual(['api_key.revoked', 'api_key.created']);
    expect(ofKey[1]).toMatchObject({ actorUserId: w.ids.member, targetType: 'api_key', details: { deploymentIds: [w.deploymentId] } });
    const keys = log.body.data.filter(
      (e: { action: string; actorUserId: string }) => e.action === 'api_key.created' && e.actorUserId === w.ids.member,
    );
    expect(keys).toHaveLength(2);
  });

  test('counts members’ calls to the team’s endpoint in the team’s rate-limit bucket, not their own', async ({ service: t, world: w }) => {
    const call = (token: string) =>
      t.call('POST', `/v1/mcp/${w.deploymentId}`, { token, headers: MCP_ACCEPT, body: initializeRequest({ clientName: 'claude-code' }) });
    const remaining = (res: { status: number; headers: Headers }) => {
      expect(res.status).toBe(200);
      return Number(res.headers.get('x-ratelimit-remaining'));
    };
    const first = remaining(await call(w.tokens.member));
    expect(remaining(await call(w.tokens.admin))).toBe(first - 1);
    // The member's own bucket is apart: their REST calls leave the team's alone.
    const own = remaining(await t.call('GET', '/v1/users/me', { token: w.tokens.member }));
    expect(remaining(await t.call('GET', '/v1/users/me', { token: w.tokens.member }))).toBe(own - 1);
    expect(remaining(await call(w.tokens.member))).toBe(first - 2);
  });

  test('breaks a team deployment’s usage down by member and by client, through REST and GraphQL', async ({ service: t, world: w }) => {
    const id = await createTeamDeployment(t, w.tokens.owner, { teamId: w.teamId, workflowIds: [w.teamWorkflow] });
    const modern = await connectClient(t.app, id, 'claude-code', { token: w.tokens.member });
    await modern.listTools();
    const legacy = new V1Client({ name: 'Cursor', version: '1.0.0' });
    await legacy.connect(
      new V1Transport(new URL(`http://127.0.0.1/v1/mcp/${id}`), {
        fetch: (url, init) => t.app.fetch(new Request(url, init)),
        requestInit: { headers: { authorization: `Bearer ${w.tokens.admin}` } },
      }),
    );
    await legacy.listTools();
    const usage = await t.call('GET', `/v1/deployments/${id}/usage?period=day`, { token: w.tokens.member });
    expect(usage.status, usage.text).toBe(200);
    expect(usage.body.data.connections.total).toBe(2);
    expect(usage.body.data.byMember).toHaveLength(2);
    expect(usage.body.data.byMember).toEqual(
      expect.arrayContaining([
        { userId: w.ids.member, count: 1 },
        { userId: w.ids.admin, count: 1 },
      ]),
    );
    expect(usage.body.data.byClient).toHaveLength(2);
    expect(usage.body.data.byClient).toEqual(
      expect.arrayContaining([
        { client: 'claude-code', count: 1 },
        { client: 'Cursor', count: 1 },
      ]),
    );
    const gql = await t.graphql(
      'query($id: String!) { deploymentUsage(deploymentId: $id, period: day) { byMember { userId count } byClient { client count } } }',
      { id },
      w.tokens.admin,
    );
    expect(gql.body.data.deploymentUsage).toEqual({ byMember: usage.body.data.byMember, byClient: usage.body.data.byClient });
    // The connections count against the month of the team's billing owner, on the plan of theirs.
    await seedPlan(t, w.ids.owner, 'pro');
    const onPro = await t.call('GET', `/v1/deployments/${id}/usage`, { token: w.tokens.member });
    expect(onPro.body.data.connections).toMatchObject({ total: 2, limit: 50_000 });
    expect(onPro.body.data.connections.remaining).toBeLessThanOrEqual(50_000 - 2);
    await seedPlan(t, w.ids.owner, 'enterprise');
    await modern.close();
    await legacy.close();
  });

  test('keeps a team deployment when its creator deletes their account', async ({ service: t, world: w }) => {
    const email = 'leaving-admin@example.com';
    const leaving = await t.token(email);
    await addMember(t, w.tokens.owner, w.teamId, { token: leaving, email }, 'admin');
    const id = await createTeamDeployment(t, leaving, { teamId: w.teamId, workflowIds: [w.teamWorkflow] });
    const deleted = await t.call('DELETE', '/v1/users/me', { token: leaving });
    expect(deleted.status, deleted.text).toBe(200);
    const read = await t.call('GET', `/v1/deployments/${id}`, { token: w.tokens.member });
    expect(read.status, read.text).toBe(200);
    expect(read.body.data.teamId).toBe(w.teamId);
  });

  test('counts the team’s deployments under its billing owner’s plan, apart from its members’ personal quotas', async ({ service: t }) => {
    const owner = await t.token('quota-owner@example.com');
    const ownerId = (await t.call('GET', '/v1/users/me', { token: owner })).body.data.userId as string;
    const teamId = await createTeam(t, owner, 'Small');
    const wf = await seedTeamWorkflow(t, ownerId, teamId);
    await seedPlan(t, ownerId, 'free');
    // The free plan allows one deployment: one personal and one of the team both fit.
    await createTeamDeployment(t, owner, { workflowIds: [await seedWorkflow(t, ownerId, { name: 'Personal' })] });
    await createTeamDeployment(t, owner, { teamId, workflowIds: [wf] });
    const over = await t.call('POST', '/v1/deployments', { token: owner, body: { name: 'Second', teamId, workflowIds: [wf] } });
    expect(over.status, over.text).toBe(402);
    expect(over.body.error.details).toMatchObject({ quota: 'deployments', plan: 'free', limit: 1, used: 1, teamId });
  });
});
