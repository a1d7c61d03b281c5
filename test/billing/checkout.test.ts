import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { PRICES, startAppWithFakeStripe, startFakeStripe, stopAppWithFakeStripe, type FakeStripe } from '../helpers/fake-stripe.js';
import { seedPlan, userIdOf } from '../helpers/seed.js';
import { serviceTestWith } from '../helpers/service-test.js';

const GOOD = { successUrl: 'https://app.example.com/billing/done', cancelUrl: 'https://app.example.com/billing' };

/** The fake Stripe the service is started with. */
let fakeStripe: FakeStripe | undefined;

/** A service pointed at a fake Stripe started before it. */
const test = serviceTestWith(
  {},
  {
    peers: async () => {
      const stripe = await startFakeStripe();
      fakeStripe = stripe;
      return { env: stripe.env(), close: () => stripe.close() };
    },
  },
).extend<{ stripe: FakeStripe }>({
  // The fake the service was started with (so after the service).
  stripe: [async ({ service: _ }, use) => use(fakeStripe!), { scope: 'file' }],
});

describe('billing routes with Stripe (a loopback fake)', () => {
  test('GET /v1/billing/subscription: a user who never paid is on free, active', async ({ service: t }) => {
    const token = await t.token('never-paid@example.com', { plan: 'free' });
    const res = await t.call('GET', '/v1/billing/subscription', { token });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      plan: 'free',
      status: 'active',
      customerId: null,
      subscriptionId: null,
      currentPeriodStart: null,
      currentPeriodEnd: null,
      cancelAtPeriodEnd: false,
    });
  });

  test('POST /v1/billing/checkout starts a subscription checkout for the user’s customer, created once', async ({ service: t, stripe }) => {
    const token = await t.token('buyer@example.com', { plan: 'free' });
    const userId = await userIdOf(t, token);
    const first = await t.call('POST', '/v1/billing/checkout', { token, body: { priceId: 'pro_monthly', ...GOOD } });
    expect(first.status).toBe(200);
    expect(first.body.data.checkoutUrl).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/);
    const second = await t.call('POST', '/v1/billing/checkout', { token, body: { priceId: 'team_annual', ...GOOD } });
    expect(second.status).toBe(200);

    const customers = stripe.requests.filter((r) => r.path === '/v1/customers');
    expect(customers).toHaveLength(1);
    expect(customers[0]!.params).toMatchObject({ email: 'buyer@example.com', 'metadata[userId]': userId });
    const sessions = stripe.requests.filter((r) => r.path === '/v1/checkout/sessions');
    expect(sessions).toHaveLength(2);
    const customerId = [...stripe.customers.keys()][0];
    expect(sessions[0]!.params).toMatchObject({
      mode: 'subscription',
      customer: customerId,
      'line_items[0][price]': PRICES.pro_monthly,
      'line_items[0][quantity]': '1',
      success_url: GOOD.successUrl,
      cancel_url: GOOD.cancelUrl,
      client_reference_id: userId,
      'metadata[priceKey]': 'pro_monthly',
      'subscription_data[metadata][plan]': 'pro',
    });
    expect(sessions[1]!.params).toMatchObject({ customer: customerId, 'line_items[0][price]': PRICES.team_annual });
    const sub = await t.call('GET', '/v1/billing/subscription', { token });
    expect(sub.body.data).toMatchObject({ plan: 'free', status: 'active', customerId });
  });

  test('concurrent first checkouts of one user create one customer', async ({ service: t, stripe }) => {
    const token = await t.token('double-click@example.com', { plan: 'free' });
    const before = stripe.customers.size;
    const results = await Promise.all(
      [1, 2, 3].map(() => t.call('POST', '/v1/billing/checkout', { token, body: { priceId: 'pro_annual', ...GOOD } })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(stripe.customers.size).toBe(before + 1);
    const customerId = (await t.call('GET', '/v1/billing/subscription', { token })).body.data.customerId;
    expect(stripe.customers.has(customerId)).toBe(true);
  });

  test('refuses redirect URLs that are not absolute http(s), and unknown prices', async ({ service: t, stripe }) => {
    const token = await t.token('bad-urls@example.com', { plan: 'free' });
    const before = stripe.requests.length;
    for (const [field, value] of [
      ['successUrl', 'javascript:alert(1)'],
      ['successUrl', 'ftp://x'],
      ['cancelUrl', '/relative/path'],
      ['cancelUrl', 'data:text/html,hi'],
    ] as const) {
      const res = await t.call('POST', '/v1/billing/checkout', { token, body: { priceId: 'pro_monthly', ...GOOD, [field]: value } });
      expect(res.status, `${field}=${value}`).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.fields[0].field).toBe(field);
    }
    const price = await t.call('POST', '/v1/billing/checkout', { token, body: { priceId: 'gold_forever', ...GOOD } });
    expect(price.status).toBe(400);
    expect(price.body.error.message).toMatch(/priceId must be one of pro_monthly, pro_annual, team_monthly, team_annual/);
    const missing = await t.call('POST', '/v1/billing/checkout', { token, body: { priceId: 'pro_monthly' } });
    expect(missing.status).toBe(400);
    expect(stripe.requests.length).toBe(before);
  });

  test('refuses a second checkout while a paid subscription is live', async ({ service: t }) => {
    const token = await t.token('already-pro@example.com', { plan: 'free' });
    const userId = await userIdOf(t, token);
    await seedPlan(t, userId, 'pro', 'active', { subscriptionId: 'sub_live_1' });
    const res = await t.call('POST', '/v1/billing/checkout', { token, body: { priceId: 'team_monthly', ...GOOD } });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/billing portal/);
  });

  test('a live subscription that grants no plan (unpaid, incomplete, paused) still blocks a second checkout', async ({ service: t }) => {
    for (const status of ['unpaid', 'incomplete', 'paused']) {
      const token = await t.token(`live-${status}@example.com`, { plan: 'free' });
      const userId = await userIdOf(t, token);
      await seedPlan(t, userId, 'pro', status, { subscriptionId: `sub_${status}_1` });
      const sub = await t.call('GET', '/v1/billing/subscription', { token });
      expect(sub.body.data).toMatchObject({ plan: 'free', status });
      const res = await t.call('POST', '/v1/billing/checkout', { token, body: { priceId: 'pro_monthly', ...GOOD } });
      expect(res.status).toBe(409);
      expect(res.body.error.details).toMatchObject({ status });
    }
    for (const status of ['trialing', 'past_due']) {
      const token = await t.token(`granting-${status}@example.com`, { plan: 'free' });
      await seedPlan(t, await userIdOf(t, token), 'team', status, { subscriptionId: `sub_${status}_1` });
      expect((await t.call('GET', '/v1/billing/subscription', { token })).body.data).toMatchObject({ plan: 'team', status });
      expect((await t.call('POST', '/v1/billing/checkout', { token, body: { priceId: 'pro_monthly', ...GOOD } })).status).toBe(409);
    }
    const ended = await t.token('ended-sub@example.com', { plan: 'free' });
    await seedPlan(t, await userIdOf(t, ended), 'pro', 'canceled', { subscriptionId: 'sub_canceled_1' });
    expect((await t.call('GET', '/v1/billing/subscription', { token: ended })).body.data).toMatchObject({
      plan: 'free',
      status: 'canceled',
    });
    expect((await t.call('POST', '/v1/billing/checkout', { token: ended, body: { priceId: 'pro_monthly', ...GOOD } })).status).toBe(200);
  });

  test('POST /v1/billing/portal opens the portal for a customer, and says clearly when there is none', async ({ service: t, stripe }) => {
    const none = await t.call('POST', '/v1/billing/portal', {
      token: await t.token('no-customer@example.com', { plan: 'free' }),
      body: { returnUrl: 'https://app.example.com/' },
    });
    expect(none.status).toBe(404);
    expect(none.body.error.message).toMatch(/no billing account yet.*checkout/);

    const token = await t.token('portal@example.com', { plan: 'free' });
    expect((await t.call('POST', '/v1/billing/checkout', { token, body: { priceId: 'pro_monthly', ...GOOD } })).status).toBe(200);
    const res = await t.call('POST', '/v1/billing/portal', { token, body: { returnUrl: 'https://app.example.com/account' } });
    expect(res.status).toBe(200);
    expect(res.body.data.portalUrl).toMatch(/^https:\/\/billing\.stripe\.test\/p\/session\/bps_/);
    expect(stripe.requests.at(-1)!.params).toMatchObject({ return_url: 'https://app.example.com/account' });
    expect((await t.call('POST', '/v1/billing/portal', { token, body: {} })).status).toBe(200);
    expect((await t.call('POST', '/v1/billing/portal', { token, body: { returnUrl: 'javascript:alert(1)' } })).status).toBe(400);
  });

  test('answers 503 when Stripe fails, without creating anything', async ({ service: t, stripe }) => {
    const token = await t.token('stripe-down@example.com', { plan: 'free' });
    stripe.failing = true;
    try {
      const res = await t.call('POST', '/v1/billing/checkout', { token, body: { priceId: 'pro_monthly', ...GOOD } });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      stripe.failing = false;
    }
    expect((await t.call('GET', '/v1/billing/subscription', { token })).body.data.customerId).toBeNull();
  });

  test('offers the same operations in GraphQL', async ({ service: t }) => {
    const token = await t.token('gql-buyer@example.com', { plan: 'free' });
    const res = await t.graphql(
      'mutation($s: String!, $c: String!) { createCheckoutSession(priceId: team_monthly, successUrl: $s, cancelUrl: $c) { checkoutUrl } }',
      { s: GOOD.successUrl, c: GOOD.cancelUrl },
      token,
    );
    expect(res.body.data.createCheckoutSession.checkoutUrl).toMatch(/^https:\/\/checkout\.stripe\.test\//);
    const sub = await t.graphql('{ billingSubscription { plan status customerId } }', {}, token);
    expect(sub.body.data.billingSubscription).toMatchObject({ plan: 'free', status: 'active', customerId: expect.stringMatching(/^cus_/) });
  });
});

describe('billing without Stripe configuration', () => {
  let t: TestApp;
  // These tests start services of their own, without Stripe or with part of it: a file has one
  // fixture service (vitest keeps a file-scoped fixture by its name, once per file), the one above.
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('answers 501 BILLING_NOT_CONFIGURED on checkout, portal and webhook, and still shows the plan', async () => {
    const token = await t.token('unconfigured@example.com', { plan: 'free' });
    const checkout = await t.call('POST', '/v1/billing/checkout', { token, body: { priceId: 'pro_monthly', ...GOOD } });
    expect(checkout.status).toBe(501);
    expect(checkout.body.error).toMatchObject({
      code: 'BILLING_NOT_CONFIGURED',
      message: expect.stringMatching(/billing is not configured.*STRIPE_SECRET_KEY/),
    });
    const portal = await t.call('POST', '/v1/billing/portal', { token, body: {} });
    expect(portal.status).toBe(501);
    const webhook = await t.call('POST', '/v1/billing/webhook', { rawBody: '{}', headers: { 'stripe-signature': 't=1,v1=x' } });
    expect(webhook.status).toBe(501);
    expect(webhook.body.error.message).toMatch(/STRIPE_WEBHOOK_SECRET/);
    expect((await t.call('GET', '/v1/billing/subscription', { token })).body.data).toMatchObject({ plan: 'free', status: 'active' });
    // The dashboard learns it before offering an upgrade: nothing can be bought here.
    expect((await t.graphql('{ billingPrices }', {}, token)).body.data).toEqual({ billingPrices: [] });
  });

  it('names the missing price when only that one is not configured', async () => {
    const { stripe, t: app } = await startAppWithFakeStripe({ STRIPE_PRICE_TEAM_ANNUAL: undefined });
    try {
      const res = await app.call('POST', '/v1/billing/checkout', {
        token: await app.token('partial@example.com', { plan: 'free' }),
        body: { priceId: 'team_annual', ...GOOD },
      });
      expect(res.status).toBe(501);
      expect(res.body.error.message).toMatch(/STRIPE_PRICE_TEAM_ANNUAL/);
      // Only the prices that can be bought are offered.
      const offered = await app.graphql('{ billingPrices }', {}, await app.token('partial@example.com', { plan: 'free' }));
      expect(offered.body.data).toEqual({ billingPrices: ['pro_monthly', 'pro_annual', 'team_monthly'] });
    } finally {
      await stopAppWithFakeStripe(app, stripe);
    }
  });
});
