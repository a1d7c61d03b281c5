import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { effectivePlan, planLimits, usagePeriod } from '../../src/limits/plans.js';
import { connectionUsage, enforceConnectionQuota, enforceQuota } from '../../src/limits/quota.js';
import type { TestApp } from '../helpers/app.js';
import { testDatabaseKind } from '../helpers/database.js';
import { MANIFEST, seedConnections, seedDeployment, seedSubscribe, seedWorkflows } from '../helpers/seed-plans.js';
import { seedPlan, userIdOf } from '../helpers/seed.js';
import { initializeRequest, MCP_ACCEPT } from '../helpers/mcp.js';
import { serviceTest } from '../helpers/service-test.js';

const onPglite = testDatabaseKind() === 'pglite';
const SINGLE_CONNECTION = 'it has one connection, so concurrent transactions never interleave; run with DATABASE_URL';

describe('plans as data', () => {
  it('has the rate limits and free quotas of spec 8, and free for anything unknown', () => {
    expect(planLimits('free')).toMatchObject({
      requestsPerMinute: 30,
      requestsPerHour: 500,
      workflows: 5,
      deployments: 1,
      connectionsPerMonth: 500,
      subscriptions: 20,
    });
    expect(planLimits('pro')).toMatchObject({ requestsPerMinute: 100, requestsPerHour: 5000 });
    expect(planLimits('team')).toMatchObject({ requestsPerMinute: 300, requestsPerHour: 20000 });
    expect(planLimits('enterprise')).toMatchObject({ requestsPerMinute: 1000, requestsPerHour: 100000 });
    expect(planLimits('platinum')).toEqual(planLimits('free'));
    expect(planLimits(null).plan).toBe('free');
    for (const plan of ['pro', 'team', 'enterprise'] as const) {
      const [lower, higher] = [planLimits(plan === 'pro' ? 'free' : plan === 'team' ? 'pro' : 'team'), planLimits(plan)];
      for (const key of ['workflows', 'deployments', 'subscriptions', 'connectionsPerMonth'] as const)
        expect(higher[key]).toBeGreaterThan(lower[key]);
    }
  });

  it('grants the paid plan only while the subscription is active, trialing or past due', () => {
    for (const status of ['active', 'trialing', 'past_due']) expect(effectivePlan({ plan: 'team', status })).toBe('team');
    for (const status of ['canceled', 'unpaid', 'incomplete', 'incomplete_expired', 'paused'])
      expect(effectivePlan({ plan: 'team', status })).toBe('free');
    expect(effectivePlan(null)).toBe('free');
    expect(usagePeriod(new Date('2026-02-28T23:59:59.999Z'))).toBe('2026-02');
  });
});

describe('quotas', () => {
  const prisma = (t: TestApp) => t.database.db.prisma;
  const inTx = <T>(t: TestApp, fn: (tx: Parameters<Parameters<ReturnType<typeof prisma>['$transaction']>[0]>[0]) => Promise<T>) =>
    prisma(t).$transaction(fn);
  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  };

  serviceTest('workflows: a free user may have 5, the 6th is refused with 402 and the numbers', async ({ service: t }) => {
    const userId = await userIdOf(t, await t.token('wf-edge@example.com', { plan: 'free' }));
    await seedWorkflows(t, userId, 4);
    await expect(inTx(t, (tx) => enforceQuota(tx, userId, 'workflows'))).resolves.toMatchObject({ used: 5, limit: 5, remaining: 0 });
    await seedWorkflows(t, userId, 1);
    const error = await refusal(inTx(t, (tx) => enforceQuota(tx, userId, 'workflows')));
    expect(error.code).toBe('PLAN_LIMIT_EXCEEDED');
    expect(error.status).toBe(402);
    expect(error.details).toMatchObject({ quota: 'workflows', limit: 5, used: 5, plan: 'free' });
  });

  serviceTest('deployments: a free user may have 1', async ({ service: t }) => {
    const userId = await userIdOf(t, await t.token('dep-edge@example.com', { plan: 'free' }));
    await expect(inTx(t, (tx) => enforceQuota(tx, userId, 'deployments'))).resolves.toMatchObject({ used: 1, limit: 1 });
    await seedDeployment(t, userId, []);
    expect((await refusal(inTx(t, (tx) => enforceQuota(tx, userId, 'deployments')))).details).toMatchObject({
      quota: 'deployments',
      limit: 1,
      used: 1,
    });
  });

  serviceTest('subscriptions: a free user may have 20', async ({ service: t }) => {
    const ownerId = await userIdOf(t, await t.token('publisher@example.com'));
    const published = await seedWorkflows(t, ownerId, 21, { visibility: 'public' });
    const userId = await userIdOf(t, await t.token('sub-edge@example.com', { plan: 'free' }));
    for (const id of published.slice(0, 19)) await seedSubscribe(t, userId, id);
    await expect(inTx(t, (tx) => enforceQuota(tx, userId, 'subscriptions'))).resolves.toMatchObject({ used: 20, limit: 20 });
    await seedSubscribe(t, userId, published[19]!);
    expect((await refusal(inTx(t, (tx) => enforceQuota(tx, userId, 'subscriptions')))).details).toMatchObject({
      quota: 'subscriptions',
      limit: 20,
      used: 20,
    });
  });

  serviceTest('a downgraded user keeps what they have but gets nothing new over the new quota', async ({ service: t }) => {
    const userId = await userIdOf(t, await t.token('downgrade@example.com', { plan: 'pro' }));
    await seedWorkflows(t, userId, 7);
    await expect(inTx(t, (tx) => enforceQuota(tx, userId, 'workflows'))).resolves.toMatchObject({ limit: 100 });
    await seedPlan(t, userId, 'pro', 'canceled');
    expect((await refusal(inTx(t, (tx) => enforceQuota(tx, userId, 'workflows')))).details).toMatchObject({
      limit: 5,
      used: 7,
      plan: 'free',
    });
    expect(await prisma(t).workflow.count({ where: { ownerId: userId } })).toBe(7);
  });

  serviceTest('connections: the 500th of the month is counted, the 501st refused and not counted', async ({ service: t }) => {
    const userId = await userIdOf(t, await t.token('conn-edge@example.com', { plan: 'free' }));
    const now = new Date();
    await seedConnections(t, userId, 499);
    await expect(enforceConnectionQuota(prisma(t), userId, now)).resolves.toMatchObject({ used: 500, limit: 500, remaining: 0 });
    const error = await refusal(enforceConnectionQuota(prisma(t), userId, now));
    expect(error.details).toMatchObject({ quota: 'connections', limit: 500, used: 500 });
    await expect(connectionUsage(prisma(t), userId, now)).resolves.toEqual({ total: 500, limit: 500, remaining: 0 });
    // A new month starts from zero.
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    await expect(enforceConnectionQuota(prisma(t), userId, nextMonth)).resolves.toMatchObject({ used: 1, remaining: 499 });
  });

  serviceTest('a deleted account cannot create anything (401, not 500)', async ({ service: t }) => {
    const error = await refusal(inTx(t, (tx) => enforceQuota(tx, 'usr_gone', 'workflows')));
    expect(error.code).toBe('UNAUTHORIZED');
  });

  serviceTest('refuses over quota through the REST routes: create, fork and subscribe', async ({ service: t }) => {
    const token = await t.token('rest-edge@example.com', { plan: 'free' });
    const userId = await userIdOf(t, token);
    const publisherToken = await t.token('rest-publisher@example.com');
    const publisherId = await userIdOf(t, publisherToken);
    const [publicId] = await seedWorkflows(t, publisherId, 1, { visibility: 'public' });
    await seedWorkflows(t, userId, 4);
    const body = { name: 'Fifth', manifest: MANIFEST };
    expect((await t.call('POST', '/v1/workflows', { token, body })).status).toBe(201);
    const sixth = await t.call('POST', '/v1/workflows', { token, body: { ...body, name: 'Sixth' } });
    expect(sixth.status).toBe(402);
    expect(sixth.body.error).toMatchObject({ code: 'PLAN_LIMIT_EXCEEDED', details: { quota: 'workflows', limit: 5, used: 5 } });
    const fork = await t.call('POST', `/v1/workflows/${publicId}/fork`, { token, body: {} });
    expect(fork.status).toBe(402);
    expect(fork.body.error.details).toMatchObject({ quota: 'workflows' });

    const subscriberToken = await t.token('rest-subscriber@example.com', { plan: 'free' });
    const subscriberId = await userIdOf(t, subscriberToken);
    const more = await seedWorkflows(t, publisherId, 20, { visibility: 'public' });
    for (const id of more.slice(0, 19)) await seedSubscribe(t, subscriberId, id);
    expect((await t.call('POST', `/v1/library/${more[19]}`, { token: subscriberToken, body: {} })).status).toBe(201);
    const over = await t.call('POST', `/v1/library/${publicId}`, { token: subscriberToken, body: {} });
    expect(over.status).toBe(402);
    expect(over.body.error.details).toMatchObject({ quota: 'subscriptions', limit: 20, used: 20 });
  });

  serviceTest("refuses a free user's second deployment through REST", async ({ service: t }) => {
    const token = await t.token('rest-deployments@example.com', { plan: 'free' });
    const userId = await userIdOf(t, token);
    const [workflowId] = await seedWorkflows(t, userId, 1);
    expect((await t.call('POST', '/v1/deployments', { token, body: { name: 'First', workflowIds: [workflowId] } })).status).toBe(201);
    const second = await t.call('POST', '/v1/deployments', { token, body: { name: 'Second', workflowIds: [workflowId] } });
    expect(second.status).toBe(402);
    expect(second.body.error).toMatchObject({ code: 'PLAN_LIMIT_EXCEEDED', details: { quota: 'deployments', limit: 1, used: 1 } });
  });

  serviceTest("refuses an MCP initialize beyond the month's connections with HTTP 402 and a JSON-RPC error", async ({ service: t }) => {
    const ownerToken = await t.token('mcp-quota@example.com', { plan: 'free' });
    const userId = await userIdOf(t, ownerToken);
    const deploymentId = await seedDeployment(t, userId, await seedWorkflows(t, userId, 1), [], { allowAnonymous: true });
    await seedConnections(t, userId, 499);
    // Two connections on adapter_one: an anonymous client, then the owner.
    const initialize = (token?: string) =>
      t.call('POST', `/v1/mcp/${deploymentId}?adapter=adapter_one`, {
        token,
        body: initializeRequest({ id: 7 }),
        headers: MCP_ACCEPT,
      });
    expect((await initialize()).status).toBe(200);
    const refused = await initialize(ownerToken);
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32010 } });
    expect(refused.headers.get('mcp-session-id')).toBeNull();
    await expect(connectionUsage(prisma(t), userId)).resolves.toEqual({ total: 500, limit: 500, remaining: 0 });
  });

  serviceTest('reports the quotas of the viewer in GraphQL, and GET /v1/users/me keeps the fields of spec 2.6', async ({ service: t }) => {
    const token = await t.token('gql-usage@example.com', { plan: 'free' });
    const userId = await userIdOf(t, token);
    await seedWorkflows(t, userId, 2);
    await seedConnections(t, userId, 12);
    const res = await t.graphql(
      '{ me { userId plan limits { plan requestsPerMinute workflows connectionsPerMonth } usage { workflows { used limit remaining } deployments { used } subscriptions { limit } connections { used limit remaining } } billing { plan status } } }',
      {},
      token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.me).toMatchObject({
      plan: 'free',
      limits: { plan: 'free', requestsPerMinute: 30, workflows: 5, connectionsPerMonth: 500 },
      usage: {
        workflows: { used: 2, limit: 5, remaining: 3 },
        deployments: { used: 0 },
        subscriptions: { limit: 20 },
        connections: { used: 12, limit: 500, remaining: 488 },
      },
      billing: { plan: 'free', status: 'active' },
    });
    const rest = await t.call('GET', '/v1/users/me', { token });
    expect(Object.keys(rest.body.data).sort()).toEqual([
      'createdAt',
      'deploymentCount',
      'email',
      'subscriptionCount',
      'updatedAt',
      'userId',
      'workflowCount',
    ]);
  });
});

describe.skipIf(onPglite)(`quotas under concurrency (skipped on PGlite: ${SINGLE_CONNECTION})`, () => {
  serviceTest('20 concurrent quota checks of a user with 4 workflows admit exactly one', async ({ service: t }) => {
    const prisma = t.database.db.prisma;
    const userId = await userIdOf(t, await t.token('race-fn@example.com', { plan: 'free' }));
    await seedWorkflows(t, userId, 4);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        prisma.$transaction(
          async (tx) => {
            await enforceQuota(tx, userId, 'workflows');
            await tx.workflow.create({
              data: { id: `wf_race_${i}_${userId}`, ownerId: userId, name: `r${i}`, currentVersion: '1.0.0', manifest: MANIFEST },
            });
          },
          { maxWait: 20_000, timeout: 20_000 },
        ),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as AppError).code).toBe('PLAN_LIMIT_EXCEEDED');
    expect(await prisma.workflow.count({ where: { ownerId: userId } })).toBe(5);
  });

  serviceTest(
    '20 concurrent POST /v1/workflows by a free user with 4 leave exactly 5, and every refusal is a 402',
    async ({ service: t }) => {
      const token = await t.token('race-rest@example.com', { plan: 'free' });
      const userId = await userIdOf(t, token);
      await seedWorkflows(t, userId, 4);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => t.call('POST', '/v1/workflows', { token, body: { name: `Race ${i}`, manifest: MANIFEST } })),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 402)).toHaveLength(19);
      for (const r of results.filter((x) => x.status === 402))
        expect(r.body.error).toMatchObject({ code: 'PLAN_LIMIT_EXCEEDED', details: { quota: 'workflows', limit: 5, used: 5 } });
      const list = await t.call('GET', '/v1/workflows', { token });
      expect(list.body.pagination.count ?? list.body.data.length).toBe(5);
    },
  );

  serviceTest('concurrent connections never exceed the month quota', async ({ service: t }) => {
    const prisma = t.database.db.prisma;
    const userId = await userIdOf(t, await t.token('race-conn@example.com', { plan: 'free' }));
    await seedConnections(t, userId, 490);
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => enforceConnectionQuota(prisma, userId)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    await expect(connectionUsage(prisma, userId)).resolves.toEqual({ total: 500, limit: 500, remaining: 0 });
  });
});
