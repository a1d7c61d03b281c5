import { describe, expect } from 'vitest';
import { DASHBOARD_QUERY } from '../../bench/scenarios.js';
import type { TestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';
import { seedPlan, seedSubscription, seedWorkflow, userIdOf } from '../helpers/seed.js';
import { initializeRequest } from '../helpers/mcp.js';
import { serviceTestWith } from '../helpers/service-test.js';
import { USER_WITH_COUNTS } from '../../src/users/sql.js';

/** The statements the database runs, from the moment a test empties the list. */
let log: string[] = [];

const INITIALIZE = initializeRequest({ clientName: 'claude-code', protocolVersion: '2025-11-25' });

/** A user with `workflows` workflows of their own and `deployments` deployments bundling `perDeployment` workflows each. */
async function dashboardUser(
  t: TestApp,
  email: string,
  size: { workflows: number; deployments: number; perDeployment: number; connections: number },
): Promise<string> {
  const token = await t.token(email);
  const userId = await userIdOf(t, token);
  await seedPlan(t, userId, 'team');
  const own: string[] = [];
  for (let i = 0; i < size.workflows; i += 1) own.push(await seedWorkflow(t, userId, { name: `Own ${i}` }));
  const authorId = await userIdOf(t, await t.token(`author-of-${email}`));
  const shared = await seedWorkflow(t, authorId, { name: 'Shared', visibility: 'public' });
  await seedSubscription(t, userId, shared);
  const deployments: string[] = [];
  for (let d = 0; d < size.deployments; d += 1) {
    // Owned workflows from a window that moves along, plus the subscribed one in every other deployment.
    const ids = Array.from({ length: size.perDeployment }, (_, k) => own[(d + k) % own.length]!).filter(
      (id, k, all) => all.indexOf(id) === k,
    );
    if (d % 2 === 1) ids.push(shared);
    const res = await t.graphql(
      `mutation($ids: [String!]!, $name: String!) { createDeployment(name: $name, workflowIds: $ids) { deploymentId } }`,
      { ids, name: `D${d}` },
      token,
    );
    expect(res.body.errors).toBeUndefined();
    deployments.push(res.body.data.createDeployment.deploymentId);
  }
  for (let c = 0; c < size.connections; c += 1) {
    const res = await t.call('POST', `/v1/mcp/${deployments[c % deployments.length]}`, { token, body: INITIALIZE });
    expect(res.status).toBe(200);
  }
  return token;
}

/** The statements of one dashboard read, after a first read has warmed the caches. */
async function readDashboard(t: TestApp, token: string): Promise<{ statements: string[]; body: any }> {
  expect((await t.graphql(DASHBOARD_QUERY, {}, token)).status).toBe(200);
  log = [];
  const res = await t.graphql(DASHBOARD_QUERY, {}, token);
  const statements = log;
  log = [];
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  return { statements, body: res.body };
}

/** The dashboard of a small user and of a large one, read on a database that logs its statements. */
const test = serviceTestWith({}, { database: () => createTestDatabase({ onQuery: (sql) => log.push(sql) }) }).extend<{
  dashboards: { small: { statements: string[]; body: any }; large: { statements: string[]; body: any } };
}>({
  dashboards: [
    async ({ service: t }, use) => {
      const small = await readDashboard(
        t,
        await dashboardUser(t, 'small@example.com', { workflows: 1, deployments: 1, perDeployment: 1, connections: 0 }),
      );
      const large = await readDashboard(
        t,
        await dashboardUser(t, 'large@example.com', { workflows: 25, deployments: 12, perDeployment: 4, connections: 5 }),
      );
      await use({ small, large });
    },
    { scope: 'file' },
  ],
});

/**
 * Issue 7's statement budget for the dashboard query that `npm run bench` loads (user →
 * workflows → stats, deployments → workflows → usage): at most 5 SQL statements, whatever the
 * sizes of the lists, with the per-user caches (token, viewer, plan) warm.
 */
describe('the dashboard query of the benchmark', () => {
  // The first test reads both dashboards (the fixture): on a loaded machine, more than the default test time.
  test('reads lists of any size with the same statements', ({ dashboards: { small, large } }) => {
    expect(small.body.data.me.workflows.data).toHaveLength(1);
    expect(small.body.data.me.deployments).toHaveLength(1);
    expect(large.body.data.me.workflows.data).toHaveLength(20);
    expect(large.body.data.me.workflows.pagination).toMatchObject({ count: 20, hasMore: true });
    expect(large.body.data.me.deployments).toHaveLength(12);
    expect(large.body.data.me.deployments.some((d: any) => d.workflows.some((w: any) => !w.isOwned))).toBe(true);
    expect(large.body.data.me.deployments.reduce((n: number, d: any) => n + d.usage.connectionsThisMonth, 0)).toBe(5);
    expect(small.statements.length).toBeGreaterThan(0);
    expect(large.statements.length, `small:\n${small.statements.join('\n')}\nlarge:\n${large.statements.join('\n')}`).toBe(
      small.statements.length,
    );
  }, 120_000);

  // The user with its counts, the workflows page, the deployments, their bundles (one statement
  // for all of them, with the owner's library entries) and the usage sums.
  test('reads the user and its counts with the service’s own statement', ({ dashboards: { large } }) => {
    expect(large.statements).toContain(USER_WITH_COUNTS.text);
  });

  test('issues at most 5 SQL statements', ({ dashboards: { small, large } }) => {
    expect(large.statements.length, large.statements.join('\n')).toBeLessThanOrEqual(5);
    expect(small.statements.length, small.statements.join('\n')).toBeLessThanOrEqual(5);
  });
});
