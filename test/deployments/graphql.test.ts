import { ADAPTERS } from '../../src/manifest/adapter-list.js';
import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';
import { seedPlan, seedSubscription, seedWorkflow, userIdOf } from '../helpers/seed.js';
import { initializeRequest } from '../helpers/mcp.js';
import { serviceTestWith } from '../helpers/service-test.js';

let statements = 0;

/** A service on a database that counts the statements sent to it. */
const test = serviceTestWith({}, { database: () => createTestDatabase({ onQuery: () => (statements += 1) }) });

const DASHBOARD = `{
  me {
    userId
    deployments {
      deploymentId name status enabledAdapters mcpEndpoint
      workflows { workflowId name version isOwned stats { subscribersCount forksCount ratingCount averageRating } }
      usage { connectionsThisMonth lastConnectedAt }
    }
  }
}`;

/** A user with `count` deployments of two workflows each (one owned, one subscribed). */
async function userWith(t: TestApp, email: string, count: number): Promise<string> {
  const token = await t.token(email);
  const userId = await userIdOf(t, token);
  await seedPlan(t, userId, 'team');
  const authorId = await userIdOf(t, await t.token(`author-of-${email}`));
  let last = '';
  for (let i = 0; i < count; i += 1) {
    const own = await seedWorkflow(t, userId, { name: `Own ${i}` });
    const other = await seedWorkflow(t, authorId, { name: `Shared ${i}`, visibility: 'public' });
    await seedSubscription(t, userId, other);
    const res = await t.graphql(
      `mutation($ids: [String!]!, $name: String!) { createDeployment(name: $name, workflowIds: $ids) { deploymentId } }`,
      { ids: [own, other], name: `D${i}` },
      token,
    );
    expect(res.body.errors).toBeUndefined();
    last = res.body.data.createDeployment.deploymentId;
  }
  // One connection, so usage has something to read.
  const init = initializeRequest({ clientName: 'claude-code', protocolVersion: '2025-11-25' });
  expect((await t.call('POST', `/v1/mcp/${last}`, { token, body: init })).status).toBe(200);
  return token;
}

async function countDashboard(t: TestApp, token: string): Promise<{ statements: number; body: any }> {
  await t.graphql(DASHBOARD, {}, token);
  statements = 0;
  const res = await t.graphql(DASHBOARD, {}, token);
  return { statements, body: res.body };
}

/** Deployments on the GraphQL face, and the dashboard query without N+1 statements. */
describe('deployments in GraphQL', () => {
  test('reads the dashboard in a number of statements that does not grow with the deployments', async ({ service: t }) => {
    const one = await countDashboard(t, await userWith(t, 'one@example.com', 1));
    const many = await countDashboard(t, await userWith(t, 'many@example.com', 8));
    expect(one.body.errors).toBeUndefined();
    expect(many.body.errors).toBeUndefined();
    expect(one.body.data.me.deployments).toHaveLength(1);
    expect(many.body.data.me.deployments).toHaveLength(8);
    const d = many.body.data.me.deployments.find((x: any) => x.name === 'D3');
    expect(d.workflows).toEqual([
      {
        workflowId: expect.any(String),
        name: 'Own 3',
        version: '1.0.0',
        isOwned: true,
        stats: { subscribersCount: 0, forksCount: 0, ratingCount: 0, averageRating: null },
      },
      expect.objectContaining({ name: 'Shared 3', isOwned: false }),
    ]);
    expect(d.usage).toEqual({ connectionsThisMonth: 0, lastConnectedAt: null });
    expect(many.body.data.me.deployments[0].usage).toMatchObject({ connectionsThisMonth: 1, lastConnectedAt: expect.any(String) });
    expect(one.statements).toBeGreaterThan(0);
    expect(many.statements).toBe(one.statements);
  });

  test('serves the queries and mutations of the REST routes', async ({ service: t }) => {
    const token = await t.token('gql@example.com');
    const userId = await userIdOf(t, token);
    await seedPlan(t, userId, 'pro');
    const wf = await seedWorkflow(t, userId);
    const created = await t.graphql(
      `mutation($ids: [String!]!) { createDeployment(name: "G", workflowIds: $ids, enabledAdapters: [adapter_one]) { deploymentId status enabledAdapters allowAnonymous } }`,
      { ids: [wf] },
      token,
    );
    const id = created.body.data.createDeployment.deploymentId;
    expect(created.body.data.createDeployment).toMatchObject({ status: 'active', enabledAdapters: ['adapter_one'], allowAnonymous: false });
    const off = await t.graphql(`mutation($id: String!) { deactivateDeployment(deploymentId: $id) { status } }`, { id }, token);
    expect(off.body.data.deactivateDeployment.status).toBe('inactive');
    const usage = await t.graphql(
      `query($id: String!) { deploymentUsage(deploymentId: $id, period: week) { period connections { total limit remaining } byAdapter { adapter_one } } }`,
      { id },
      token,
    );
    expect(usage.body.data.deploymentUsage).toMatchObject({
      period: 'week',
      connections: { total: 0, limit: 50_000, remaining: 50_000 },
      byAdapter: { adapter_one: 0 },
    });
    // adapterCounts: byAdapter as a list of every adapter, in the list's order; GraphQL only (REST answers the spec's object).
    const listed = await t.graphql(
      `query($id: String!) { deploymentUsage(deploymentId: $id) { byAdapter { ${ADAPTERS.join(' ')} } adapterCounts { adapter count } } }`,
      { id },
      token,
    );
    const { byAdapter, adapterCounts } = listed.body.data.deploymentUsage;
    expect(adapterCounts).toEqual(ADAPTERS.map((adapter) => ({ adapter, count: byAdapter[adapter] })));
    const rest = await t.call('GET', `/v1/deployments/${id}/usage`, { token });
    expect(rest.status).toBe(200);
    expect(Object.keys(rest.body.data).sort()).toEqual(
      ['byAdapter', 'byClient', 'byDay', 'byMember', 'connections', 'deploymentId', 'from', 'period', 'to'].sort(),
    );
    const bad = await t.graphql(
      `mutation($ids: [String!]!) { createDeployment(name: "", workflowIds: $ids) { deploymentId } }`,
      { ids: [wf] },
      token,
    );
    expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
    const other = await t.graphql(
      `query($id: String!) { deployment(deploymentId: $id) { name } }`,
      { id },
      await t.token('someone@example.com'),
    );
    expect(other.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const gone = await t.graphql(`mutation($id: String!) { deleteDeployment(deploymentId: $id) { deploymentId deleted } }`, { id }, token);
    expect(gone.body.data.deleteDeployment).toEqual({ deploymentId: id, deleted: true });
  });
});
