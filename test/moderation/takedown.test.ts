import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { tokens as makeTokens, subscribeAndReview } from '../helpers/marketplace.js';
import { connectClient } from '../helpers/mcp.js';
import { serviceTestWith } from '../helpers/service-test.js';
import { createWorkflow, libraryEntry } from '../helpers/workflows.js';

/**
 * Report and take down (docs/marketplace.md, "Reports and takedown"), through the public faces:
 * a user reports a public workflow, an operator (ADMIN_EMAILS) unlists it (gone from browse, search
 * and featured, still served to its subscriber), suspends it (gone from the subscriber's tools/list
 * and marked on the deployment's REST and GraphQL answers with the operators' reason) and
 * reinstates it; the author sees the state; everything is in the operators' log; nobody else
 * learns the operators' routes exist.
 */

const OPERATOR = 'ops@example.com';
const test = serviceTestWith({ ADMIN_EMAILS: ` Someone@Example.org, ${OPERATOR.toUpperCase()} ` });

const WORD = 'zanzibarish';

async function operator(t: TestApp): Promise<string> {
  return t.token(OPERATOR);
}

/** Alice's public workflow that Bob subscribes to and bundles beside one of his own in a deployment. */
async function subscribed(t: TestApp, alice: string, bob: string, name: string) {
  const w = await createWorkflow(t, alice, { name: `${name} ${WORD}`, visibility: 'public', category: 'takedown' });
  expect((await t.call('POST', `/v1/library/${w.workflowId}`, { token: bob, body: {} })).status).toBe(201);
  const own = await createWorkflow(t, bob, { name: `${name} own` });
  const dep = await t.call('POST', '/v1/deployments', {
    token: bob,
    body: { name: `${name} deployment`, workflowIds: [own.workflowId, w.workflowId] },
  });
  expect(dep.status, dep.text).toBe(201);
  return { workflowId: w.workflowId as string, ownId: own.workflowId as string, deploymentId: dep.body.data.deploymentId as string };
}

/** The workflows Bob's deployment's tool endpoint offers, by the ids in its manifest resources (official v2 client). */
async function offered(t: TestApp, token: string, deploymentId: string): Promise<{ ids: string[]; toolText: string }> {
  const client = await connectClient(t.app, deploymentId, 'claude-code', { token });
  try {
    const { tools } = await client.listTools();
    const { resources } = await client.listResources();
    const ids = resources.map((r) => /^workflow:\/\/([^/]+)\/manifest$/.exec(r.uri)?.[1]).filter((id): id is string => Boolean(id));
    return { ids, toolText: JSON.stringify(tools) };
  } finally {
    await client.close();
  }
}

async function moderate(t: TestApp, token: string, workflowId: string, action: string, reason: string) {
  return t.call('POST', `/v1/admin/workflows/${workflowId}/moderation`, { token, body: { action, reason } });
}

const ids = (res: { body: { data: { workflowId: string }[] } }) => res.body.data.map((w) => w.workflowId);

describe('reporting a workflow', () => {
  test('any signed-in user reports a public workflow once, with a reason; every bad input is refused', async ({
    service: t,
    alice,
    bob,
    carol,
  }) => {
    const w = await createWorkflow(t, alice, { name: 'Reported once', visibility: 'public' });
    const hidden = await createWorkflow(t, alice, { name: 'Private one', visibility: 'private' });
    const path = `/v1/workflows/${w.workflowId}/reports`;

    const made = await t.call('POST', path, { token: bob, body: { reason: '  It tells the agent to read ~/.aws/credentials  ' } });
    expect(made.status, made.text).toBe(201);
    expect(made.body.data).toMatchObject({
      workflow: { workflowId: w.workflowId, name: 'Reported once', moderationState: 'listed' },
      reason: 'It tells the agent to read ~/.aws/credentials',
      status: 'open',
      closedAt: null,
    });
    expect(made.body.data.reporter.handle).toMatch(/^user-/);
    expect(JSON.stringify(made.body)).not.toContain('@example.com');

    const again = await t.call('POST', path, { token: bob, body: { reason: 'Still bad' } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'CONFLICT', details: { reason: 'already_reported' } });

    expect((await t.call('POST', path, { body: { reason: 'No token' } })).status).toBe(401);
    expect((await t.call('POST', '/v1/workflows/wf_unknown/reports', { token: bob, body: { reason: 'Unknown' } })).status).toBe(404);
    const priv = await t.call('POST', `/v1/workflows/${hidden.workflowId}/reports`, { token: bob, body: { reason: 'Private' } });
    expect(priv.status).toBe(404);
    expect(priv.body.error.code).toBe('NOT_FOUND');
    const own = await t.call('POST', path, { token: alice, body: { reason: 'My own' } });
    expect(own.status).toBe(403);
    for (const reason of ['', '   ', 'x'.repeat(1001)]) {
      const bad = await t.call('POST', path, { token: carol, body: { reason } });
      expect(bad.status, reason.slice(0, 5)).toBe(400);
      expect(bad.body.error.details.fields[0].field).toBe('reason');
    }
    expect((await t.call('POST', path, { token: carol, body: {} })).status).toBe(400);
    expect((await t.call('POST', path, { token: carol, body: { reason: 42 } })).status).toBe(400);

    // GraphQL: the same mutation, the same rules.
    const gql = await t.graphql(
      'mutation($id: String!, $r: String!) { reportWorkflow(workflowId: $id, reason: $r) { status reason workflow { workflowId } } }',
      { id: w.workflowId, r: 'Impersonates a known author' },
      carol,
    );
    expect(gql.body.data.reportWorkflow).toEqual({
      status: 'open',
      reason: 'Impersonates a known author',
      workflow: { workflowId: w.workflowId },
    });
    const twice = await t.graphql(
      'mutation($id: String!) { reportWorkflow(workflowId: $id, reason: "again") { status } }',
      { id: w.workflowId },
      carol,
    );
    expect(twice.body.errors[0].extensions.code).toBe('CONFLICT');
  });
});

describe("the operators' routes", () => {
  test('answer everyone else, signed in or not, exactly as routes that do not exist', async ({ service: t, alice, bob }) => {
    const w = await createWorkflow(t, alice, { name: 'Probe target', visibility: 'public' });
    const unknown = await t.call('GET', '/v1/admin/nothing-here', { token: bob });
    expect(unknown.status).toBe(404);
    const probes: [string, string, unknown][] = [
      ['GET', '/v1/admin/reports', undefined],
      ['GET', '/v1/admin/moderation-actions', undefined],
      ['POST', `/v1/admin/workflows/${w.workflowId}/moderation`, { action: 'suspend', reason: 'probe' }],
      ['POST', `/v1/admin/workflows/${w.workflowId}/moderation`, {}],
      ['GET', `/v1/admin/workflows/${w.workflowId}/moderation`, undefined],
    ];
    for (const token of [bob, null]) {
      for (const [method, path, body] of probes) {
        const res = await t.call(method, path, { token, body });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.error).toEqual({ code: 'NOT_FOUND', message: `there is no route ${method} ${path}`, details: { method, path } });
      }
    }
    // Nothing changed, and GraphQL says no more than NOT_FOUND.
    expect((await t.call('GET', `/v1/workflows/${w.workflowId}`, { token: alice })).body.data.moderation.state).toBe('listed');
    for (const query of ['{ moderationReports { data { reportId } } }', '{ moderationActions { data { actionId } } }']) {
      const gql = await t.graphql(query, {}, bob);
      expect(
        gql.body.errors.map((e: any) => e.extensions.code),
        query,
      ).toEqual(['NOT_FOUND']);
    }
    const mutation = await t.graphql(
      'mutation($id: String!) { moderateWorkflow(workflowId: $id, action: suspend, reason: "probe") { actionId } }',
      { id: w.workflowId },
      bob,
    );
    expect(mutation.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const me = await t.graphql('{ me { isOperator } }', {}, bob);
    expect(me.body.data.me.isOperator).toBe(false);
    expect((await t.graphql('{ me { isOperator } }', {}, await operator(t))).body.data.me.isOperator).toBe(true);
  });

  test('refuse an operator bad actions: empty or long reason, unknown action or workflow, no change', async ({ service: t, alice }) => {
    const ops = await operator(t);
    const w = await createWorkflow(t, alice, { name: 'Bad actions', visibility: 'public' });
    expect((await moderate(t, ops, w.workflowId, 'suspend', '')).status).toBe(400);
    expect((await moderate(t, ops, w.workflowId, 'suspend', 'y'.repeat(1001))).status).toBe(400);
    expect((await moderate(t, ops, w.workflowId, 'delete', 'no such action')).status).toBe(400);
    expect((await moderate(t, ops, 'wf_unknown', 'suspend', 'unknown')).status).toBe(404);
    const noChange = await moderate(t, ops, w.workflowId, 'reinstate', 'already listed');
    expect(noChange.status).toBe(409);
    const noReports = await moderate(t, ops, w.workflowId, 'dismiss', 'nothing to dismiss');
    expect(noReports.status).toBe(409);
    const log = await t.call('GET', `/v1/admin/moderation-actions?workflowId=${w.workflowId}`, { token: ops });
    expect(log.status).toBe(200);
    expect(log.body.data).toEqual([]);
  });
});

describe('report → unlist → suspend → reinstate', () => {
  test('is seen by the marketplace, the subscriber, the author and the log', async ({ service: t, alice, bob, carol, dave }) => {
    const ops = await operator(t);
    const { workflowId, ownId, deploymentId } = await subscribed(t, alice, bob, 'Takedown');
    // Three more subscribers rate it well, so that it is featured.
    await subscribeAndReview(t, await makeTokens(t, 'takedown-rater', 3), workflowId, [5, 5, 5]);
    const marketplace = async () => ({
      browse: ids(await t.call('GET', '/v1/marketplace?category=takedown', { token: carol })),
      search: ids(await t.call('GET', `/v1/marketplace/search?q=${WORD}`, { token: carol })),
      featured: ids(await t.call('GET', '/v1/marketplace/featured', { token: carol })),
    });
    expect(await marketplace()).toEqual({ browse: [workflowId], search: [workflowId], featured: [workflowId] });
    expect((await offered(t, bob, deploymentId)).ids).toEqual([ownId, workflowId]);

    // Reported; the operator sees it.
    expect((await t.call('POST', `/v1/workflows/${workflowId}/reports`, { token: carol, body: { reason: 'Runs commands' } })).status).toBe(
      201,
    );
    const open = await t.call('GET', '/v1/admin/reports', { token: ops });
    expect(open.status, open.text).toBe(200);
    expect(open.body.data.map((r: any) => [r.workflow.workflowId, r.reason, r.status])).toContainEqual([
      workflowId,
      'Runs commands',
      'open',
    ]);
    expect(open.body.pagination).toMatchObject({ hasMore: false });

    // Unlisted: out of browse, search and featured; still served to the subscriber; no new subscribers.
    const unlist = await moderate(t, ops, workflowId, 'unlist', 'Under review: reported as running commands');
    expect(unlist.status, unlist.text).toBe(201);
    expect(unlist.body.data).toMatchObject({ action: 'unlist', reportsClosed: 1, operatorEmail: OPERATOR, workflowId });
    expect(await marketplace()).toEqual({ browse: [], search: [], featured: [] });
    expect((await offered(t, bob, deploymentId)).ids).toEqual([ownId, workflowId]);
    const late = await t.call('POST', `/v1/library/${workflowId}`, { token: dave, body: {} });
    expect(late.status).toBe(403);
    expect(late.body.error.details.reason).toBe('workflow_unlisted');
    const author = await t.call('GET', `/v1/workflows/${workflowId}`, { token: alice });
    expect(author.body.data.moderation).toMatchObject({ state: 'unlisted', reason: 'Under review: reported as running commands' });
    expect(author.body.data.moderation.at).toEqual(unlist.body.data.at);
    const reports = await t.call('GET', '/v1/admin/reports?status=closed', { token: ops });
    expect(reports.body.data.find((r: any) => r.workflow.workflowId === workflowId)).toMatchObject({
      status: 'closed',
      closedByActionId: unlist.body.data.actionId,
    });

    // Suspended: gone from the subscriber's tools/list, prompts and resources; the deployment says why.
    const reason = 'Reads secrets from the project folder';
    expect((await moderate(t, ops, workflowId, 'suspend', reason)).status).toBe(201);
    const served = await offered(t, bob, deploymentId);
    expect(served.ids).toEqual([ownId]);
    expect(served.toolText).not.toContain(WORD);
    const dep = await t.call('GET', `/v1/deployments/${deploymentId}`, { token: bob });
    expect(dep.body.data.workflows.map((w: any) => [w.workflowId, w.available, w.unavailableReason])).toEqual([
      [ownId, true, null],
      [workflowId, false, `suspended by the operators: ${reason}`],
    ]);
    const gql = await t.graphql(
      'query($id: String!) { deployment(deploymentId: $id) { workflows { workflowId available unavailableReason } } }',
      { id: deploymentId },
      bob,
    );
    expect(gql.body.data.deployment.workflows[1]).toEqual({
      workflowId,
      available: false,
      unavailableReason: `suspended by the operators: ${reason}`,
    });
    expect(await libraryEntry(t, bob, workflowId)).toMatchObject({
      available: false,
      unavailableReason: `suspended by the operators: ${reason}`,
    });
    expect((await t.call('GET', `/v1/workflows/${workflowId}`, { token: alice })).body.data.moderation).toMatchObject({
      state: 'suspended',
      reason,
    });
    const fork = await t.call('POST', `/v1/workflows/${workflowId}/fork`, { token: dave, body: {} });
    expect(fork.status).toBe(403);
    expect(fork.body.error.details.reason).toBe('workflow_suspended');
    // Not even the author's own deployment serves it.
    const authorDep = await t.call('POST', '/v1/deployments', {
      token: alice,
      body: { name: 'Author deployment', workflowIds: [workflowId] },
    });
    expect((await offered(t, alice, authorDep.body.data.deploymentId)).ids).toEqual([]);

    // Reinstated: back everywhere.
    expect((await moderate(t, ops, workflowId, 'reinstate', 'The author removed the commands')).status).toBe(201);
    expect((await offered(t, bob, deploymentId)).ids).toEqual([ownId, workflowId]);
    expect(await marketplace()).toEqual({ browse: [workflowId], search: [workflowId], featured: [workflowId] });

    // The log: who, when and why, newest first, readable by operators on REST and GraphQL.
    const log = await t.call('GET', `/v1/admin/moderation-actions?workflowId=${workflowId}&limit=2`, { token: ops });
    expect(log.body.data.map((a: any) => [a.action, a.reason, a.operatorEmail])).toEqual([
      ['reinstate', 'The author removed the commands', OPERATOR],
      ['suspend', reason, OPERATOR],
    ]);
    expect(log.body.pagination.hasMore).toBe(true);
    const rest = await t.call(
      'GET',
      `/v1/admin/moderation-actions?workflowId=${workflowId}&cursor=${encodeURIComponent(log.body.pagination.nextCursor)}`,
      {
        token: ops,
      },
    );
    expect(rest.body.data.map((a: any) => a.action)).toEqual(['unlist']);
    for (const a of [...log.body.data, ...rest.body.data]) expect(Date.parse(a.at)).not.toBeNaN();
    const viaGraphql = await t.graphql('{ moderationActions(limit: 100) { data { action workflowId workflowName operatorId } } }', {}, ops);
    expect(viaGraphql.body.data.moderationActions.data.filter((a: any) => a.workflowId === workflowId).map((a: any) => a.action)).toEqual([
      'reinstate',
      'suspend',
      'unlist',
    ]);
  });
});
