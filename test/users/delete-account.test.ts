import { describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { aSecondLater } from '../helpers/clock.js';
import { startFakeStripe, type FakeStripe } from '../helpers/fake-stripe.js';
import { seedBillingRecords, seedConnections, seedDeployment, seedSubscribe, seedWorkflows } from '../helpers/seed-plans.js';
import { seedPlan, userIdOf } from '../helpers/seed.js';
import { initializeRequest } from '../helpers/mcp.js';
import { serviceTestWith } from '../helpers/service-test.js';

const INITIALIZE = initializeRequest();

/** The stand-in for Stripe the service is pointed at: started by the service fixture, before the service. */
let stripe: FakeStripe;

const withStripe = serviceTestWith(
  {},
  {
    peers: async () => {
      stripe = await startFakeStripe();
      return { env: stripe.env(), close: () => stripe.close() };
    },
  },
);

describe('DELETE /v1/users/me', () => {
  const prisma = (t: TestApp) => t.database.db.prisma;

  /** Every row anywhere that belongs to, or points at something of, the user. */
  async function leftovers(t: TestApp, userId: string, workflowIds: string[], deploymentIds: string[]) {
    const p = prisma(t);
    return {
      users: await p.user.count({ where: { id: userId } }),
      workflows: await p.workflow.count({ where: { OR: [{ ownerId: userId }, { id: { in: workflowIds } }] } }),
      versions: await p.workflowVersion.count({ where: { workflowId: { in: workflowIds } } }),
      library: await p.libraryEntry.count({ where: { OR: [{ userId }, { workflowId: { in: workflowIds } }] } }),
      reviews: await p.review.count({ where: { OR: [{ userId }, { workflowId: { in: workflowIds } }] } }),
      deployments: await p.deployment.count({ where: { OR: [{ ownerId: userId }, { id: { in: deploymentIds } }] } }),
      bundles: await p.deploymentWorkflow.count({
        where: { OR: [{ deploymentId: { in: deploymentIds } }, { workflowId: { in: workflowIds } }] },
      }),
      usage: await p.deploymentUsage.count({ where: { deploymentId: { in: deploymentIds } } }),
      counters: await p.usageCounter.count({ where: { userId } }),
      subscription: await p.billingSubscription.count({ where: { userId } }),
      records: await p.billingRecord.count({ where: { userId } }),
    };
  }

  withStripe(
    'removes everything of the user in one go, with counts equal to what existed; others keep their forks',
    async ({ service: t }) => {
      const token = await t.token('leaving@example.com', { plan: 'free' });
      const userId = await userIdOf(t, token);
      const forkerToken = await t.token('forker@example.com');
      const forkerId = await userIdOf(t, forkerToken);
      const fanToken = await t.token('fan@example.com');
      const fanId = await userIdOf(t, fanToken);
      const otherId = await userIdOf(t, await t.token('other-author@example.com'));

      const [w1, w2] = await seedWorkflows(t, userId, 2, { visibility: 'public', versions: 2 });
      const [w3] = await seedWorkflows(t, userId, 1, { versions: 1 });
      const [fork] = await seedWorkflows(t, forkerId, 1, { forkOf: { workflowId: w1!, userId } });
      await prisma(t).workflow.update({ where: { id: w1! }, data: { forksCount: 1 } });
      await seedSubscribe(t, fanId, w1!);
      await seedSubscribe(t, fanId, w2!);
      const [theirs] = await seedWorkflows(t, otherId, 1, { visibility: 'public' });
      await seedSubscribe(t, userId, theirs!);
      await prisma(t).review.create({ data: { id: 'rev_leaving', workflowId: theirs!, userId, rating: 4, text: 'good' } });
      await prisma(t).workflow.update({ where: { id: theirs! }, data: { ratingSum: 9, ratingCount: 2 } });
      const dep1 = await seedDeployment(t, userId, [w1!, w2!, theirs!], ['2026-01-01', '2026-01-02', '2026-01-03'], {
        allowAnonymous: true,
      });
      const dep2 = await seedDeployment(t, userId, [w3!], ['2026-01-01']);
      const [fanOwn] = await seedWorkflows(t, fanId, 1);
      const fanDeployment = await seedDeployment(t, fanId, [fanOwn!, w1!]);
      await seedBillingRecords(t, userId, 3);
      await seedConnections(t, userId, 7);
      await seedPlan(t, userId, 'pro', 'active', { customerId: 'cus_leaving', subscriptionId: 'sub_leaving' });
      stripe.subscriptions.set('sub_leaving', { id: 'sub_leaving', customer: 'cus_leaving', status: 'active' });

      const endpoint = () =>
        t.call('POST', `/v1/mcp/${dep1}?adapter=adapter_one`, {
          body: INITIALIZE,
          headers: { accept: 'application/json, text/event-stream' },
        });
      // A connection to the anonymous deployment's endpoint, which records a usage row too.
      expect((await endpoint()).status).toBe(200);
      const mine = [w1!, w2!, w3!];
      const before = {
        workflows: await prisma(t).workflow.count({ where: { ownerId: userId } }),
        workflowVersions: await prisma(t).workflowVersion.count({ where: { workflow: { ownerId: userId } } }),
        deployments: await prisma(t).deployment.count({ where: { ownerId: userId } }),
        deploymentPrompts: await prisma(t).deploymentWorkflow.count({
          where: { OR: [{ deployment: { ownerId: userId } }, { workflowId: { in: mine } }] },
        }),
        deploymentLookups: await prisma(t).deploymentUsage.count({ where: { deployment: { ownerId: userId } } }),
        subscriptions: await prisma(t).libraryEntry.count({ where: { userId, sourceType: 'subscribed' } }),
        subscriberEntries: await prisma(t).libraryEntry.count({ where: { workflowId: { in: mine }, userId: { not: userId } } }),
        billingRecords: await prisma(t).billingRecord.count({ where: { userId } }),
      };
      expect(before).toEqual({
        workflows: 3,
        workflowVersions: 5,
        deployments: 2,
        deploymentPrompts: 5,
        deploymentLookups: 5,
        subscriptions: 1,
        subscriberEntries: 2,
        billingRecords: 3,
      });

      const res = await t.call('DELETE', '/v1/users/me', { token });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ userId, deleted: true, deletedAt: expect.any(String), stats: before });
      expect(new Date(res.body.data.deletedAt).toISOString()).toBe(res.body.data.deletedAt);

      expect(await leftovers(t, userId, mine, [dep1, dep2])).toEqual({
        users: 0,
        workflows: 0,
        versions: 0,
        library: 0,
        reviews: 0,
        deployments: 0,
        bundles: 0,
        usage: 0,
        counters: 0,
        subscription: 0,
        records: 0,
      });
      // The paid subscription was cancelled at Stripe.
      expect(stripe.requests.some((r) => r.method === 'DELETE' && r.path === '/v1/subscriptions/sub_leaving')).toBe(true);
      expect(stripe.subscriptions.get('sub_leaving')!.status).toBe('canceled');
      // The deployment's endpoint is gone at once: without a token it answers as any unknown (or private) deployment.
      expect((await endpoint()).status).toBe(401);
      // The fork made by someone else stays and still names its origin.
      const forked = await t.call('GET', `/v1/workflows/${fork}`, { token: forkerToken });
      expect(forked.status).toBe(200);
      expect(forked.text).toContain(w1!);
      // The fan's library lost the deleted workflows; their own deployment lost only the bundle of w1.
      const library = await t.call('GET', '/v1/library', { token: fanToken });
      expect(library.text).not.toContain(w1!);
      expect(await prisma(t).deploymentWorkflow.findMany({ where: { deploymentId: fanDeployment }, select: { workflowId: true } })).toEqual(
        [{ workflowId: fanOwn }],
      );
      // Counters other users' workflows keep about the user were corrected.
      expect(
        await prisma(t).workflow.findUniqueOrThrow({
          where: { id: theirs! },
          select: { subscribersCount: true, ratingSum: true, ratingCount: true },
        }),
      ).toEqual({ subscribersCount: 0, ratingSum: 5, ratingCount: 1 });
    },
  );

  withStripe(
    'the same token afterwards opens nothing; a new sign-in starts a new, empty account on the free plan',
    async ({ service: t }) => {
      const old = await t.token('again@example.com', { plan: 'free' });
      const userId = await userIdOf(t, old);
      await seedWorkflows(t, userId, 2);
      expect((await t.call('DELETE', '/v1/users/me', { token: old })).status).toBe(200);
      expect((await t.call('GET', '/v1/users/me', { token: old })).status).toBe(401);
      // iat counts whole seconds: a token of the deletion's own second is refused too.
      const token = await aSecondLater(() => t.token('again@example.com', { plan: 'free', expiresInSeconds: 1800 }));
      const me = await t.call('GET', '/v1/users/me', { token });
      expect(me.status).toBe(200);
      expect(me.body.data.userId).not.toBe(userId);
      expect(me.body.data).toMatchObject({ email: 'again@example.com', workflowCount: 0, deploymentCount: 0, subscriptionCount: 0 });
      expect((await t.call('GET', '/v1/billing/subscription', { token })).body.data).toMatchObject({
        plan: 'free',
        status: 'active',
        customerId: null,
      });
    },
  );

  withStripe('deletes nothing when Stripe cannot cancel the subscription, and says so', async ({ service: t }) => {
    const token = await t.token('stuck@example.com', { plan: 'free' });
    const userId = await userIdOf(t, token);
    await seedWorkflows(t, userId, 1);
    await seedPlan(t, userId, 'team', 'active', { customerId: 'cus_stuck', subscriptionId: 'sub_stuck' });
    stripe.subscriptions.set('sub_stuck', { id: 'sub_stuck', customer: 'cus_stuck', status: 'active' });
    stripe.failing = true;
    try {
      const res = await t.call('DELETE', '/v1/users/me', { token });
      expect(res.status).toBe(503);
      expect(res.body.error.message).toMatch(/nothing was deleted/);
    } finally {
      stripe.failing = false;
    }
    expect((await t.call('GET', '/v1/users/me', { token })).body.data).toMatchObject({ userId, workflowCount: 1 });
    // A subscription Stripe no longer knows is as good as cancelled.
    stripe.subscriptions.delete('sub_stuck');
    expect((await t.call('DELETE', '/v1/users/me', { token })).status).toBe(200);
  });

  withStripe('works through GraphQL (deleteMe), with all eight counts', async ({ service: t }) => {
    const token = await t.token('gql-leaving@example.com', { plan: 'free' });
    const userId = await userIdOf(t, token);
    await seedWorkflows(t, userId, 1, { versions: 3 });
    const res = await t.graphql(
      'mutation { deleteMe { userId deleted deletedAt stats { workflows workflowVersions deployments deploymentPrompts deploymentLookups subscriptions subscriberEntries billingRecords } } }',
      {},
      token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.deleteMe).toMatchObject({
      userId,
      deleted: true,
      stats: {
        workflows: 1,
        workflowVersions: 3,
        deployments: 0,
        deploymentPrompts: 0,
        deploymentLookups: 0,
        subscriptions: 0,
        subscriberEntries: 0,
        billingRecords: 0,
      },
    });
  });
});

describe('DELETE /v1/users/me without Stripe configuration', () => {
  // A service of its own, started here rather than by the fixture: the fixture's service is one per
  // file, and this file's is the one pointed at the stand-in for Stripe.
  it('deletes a free account, and refuses to strand a paid subscription', async () => {
    const t = await startTestApp();
    try {
      const free = await t.token('plain@example.com', { plan: 'free' });
      expect((await t.call('DELETE', '/v1/users/me', { token: free })).status).toBe(200);
      const paid = await t.token('paid-unconfigured@example.com', { plan: 'free' });
      await seedPlan(t, await userIdOf(t, paid), 'pro', 'active', { subscriptionId: 'sub_orphan' });
      const res = await t.call('DELETE', '/v1/users/me', { token: paid });
      expect(res.status).toBe(501);
      expect(res.body.error.code).toBe('BILLING_NOT_CONFIGURED');
    } finally {
      await t.close();
    }
  });
});
