import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import {
  PRICES,
  signature,
  startAppWithFakeStripe,
  stopAppWithFakeStripe,
  stripeEvent,
  subscriptionObject,
  type FakeStripe,
} from '../helpers/fake-stripe.js';
import { MANIFEST, seedWorkflows } from '../helpers/seed-plans.js';
import { userIdOf } from '../helpers/seed.js';

describe('Stripe webhook', () => {
  let stripe: FakeStripe;
  let t: TestApp;
  beforeAll(async () => ({ stripe, t } = await startAppWithFakeStripe({ RATE_LIMIT_MODE: 'enforce' })));
  afterAll(() => stopAppWithFakeStripe(t, stripe));

  const deliver = (payload: string, sig: string | null = signature(payload)) =>
    t.call('POST', '/v1/billing/webhook', {
      rawBody: payload,
      headers: { 'content-type': 'application/json', ...(sig ? { 'stripe-signature': sig } : {}) },
    });

  /** A free user who went through checkout: they have a Stripe customer. */
  async function customer(email: string) {
    const token = await t.token(email, { plan: 'free' });
    const userId = await userIdOf(t, token);
    const res = await t.call('POST', '/v1/billing/checkout', {
      token,
      body: { priceId: 'pro_monthly', successUrl: 'https://a.example/ok', cancelUrl: 'https://a.example/no' },
    });
    expect(res.status).toBe(200);
    const customerId = (await t.call('GET', '/v1/billing/subscription', { token })).body.data.customerId as string;
    return { token, userId, customerId };
  }
  const subscriptionOf = async (token: string) => (await t.call('GET', '/v1/billing/subscription', { token })).body.data;
  const records = (userId: string) => t.database.db.prisma.billingRecord.findMany({ where: { userId }, orderBy: { createdAt: 'asc' } });
  const T0 = Math.floor(Date.now() / 1000) - 3600;

  it('checkout.session.completed puts the user on the plan bought, at once', async () => {
    const { token, userId, customerId } = await customer('checkout-done@example.com');
    const session = {
      id: 'cs_test_1',
      object: 'checkout.session',
      mode: 'subscription',
      customer: customerId,
      subscription: 'sub_ck_1',
      client_reference_id: userId,
      payment_status: 'paid',
      amount_total: 1200,
      currency: 'usd',
      metadata: { userId, priceKey: 'pro_monthly' },
    };
    const res = await deliver(stripeEvent('checkout.session.completed', session, { created: T0 }));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ received: true, duplicate: false, applied: true });
    expect(await subscriptionOf(token)).toMatchObject({ plan: 'pro', status: 'active', customerId, subscriptionId: 'sub_ck_1' });
    // The rate limit follows the new plan at once (the cached plan was dropped).
    expect((await t.call('GET', '/v1/users/me', { token })).headers.get('x-ratelimit-limit')).toBe('100');
    expect((await records(userId)).map((r) => r.kind)).toEqual(['checkout_completed']);
  });

  it('subscription events set plan from the price, status, period and cancelAtPeriodEnd; a duplicate is applied once', async () => {
    const { token, userId, customerId } = await customer('sub-events@example.com');
    const created = stripeEvent(
      'customer.subscription.created',
      subscriptionObject({ id: 'sub_ev_1', customer: customerId, price: PRICES.pro_monthly, periodStart: T0, periodEnd: T0 + 30 * 86400 }),
      { created: T0 },
    );
    expect((await deliver(created)).body.data.applied).toBe(true);
    expect(await subscriptionOf(token)).toEqual({
      plan: 'pro',
      status: 'active',
      customerId,
      subscriptionId: 'sub_ev_1',
      currentPeriodStart: new Date(T0 * 1000).toISOString(),
      currentPeriodEnd: new Date((T0 + 30 * 86400) * 1000).toISOString(),
      cancelAtPeriodEnd: false,
    });

    const upgrade = stripeEvent(
      'customer.subscription.updated',
      subscriptionObject({
        id: 'sub_ev_1',
        customer: customerId,
        price: PRICES.team_annual,
        periodStart: T0,
        periodEnd: T0 + 365 * 86400,
        cancelAtPeriodEnd: true,
      }),
      { created: T0 + 10 },
    );
    const first = await deliver(upgrade);
    const again = await deliver(upgrade);
    expect(first.body.data).toMatchObject({ duplicate: false, applied: true });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ duplicate: true, applied: false });
    expect(await subscriptionOf(token)).toMatchObject({
      plan: 'team',
      status: 'active',
      cancelAtPeriodEnd: true,
      currentPeriodEnd: new Date((T0 + 365 * 86400) * 1000).toISOString(),
    });
    expect((await records(userId)).map((r) => r.kind)).toEqual(['subscription_created', 'subscription_updated']);
    expect(await t.database.db.prisma.processedEvent.count({ where: { id: JSON.parse(upgrade).id } })).toBe(1);
  });

  it('concurrent deliveries of one event apply it once', async () => {
    const { userId, customerId } = await customer('racing-delivery@example.com');
    const event = stripeEvent('invoice.paid', {
      id: 'in_race',
      object: 'invoice',
      customer: customerId,
      amount_paid: 1200,
      amount_due: 1200,
      currency: 'usd',
      period_start: T0,
      period_end: T0 + 1,
      parent: null,
    });
    const results = await Promise.all(Array.from({ length: 5 }, () => deliver(event)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(results.filter((r) => r.body.data.duplicate === false)).toHaveLength(1);
    expect(await records(userId)).toHaveLength(1);
  });

  it('a late, older event never overwrites newer state', async () => {
    const { token, customerId } = await customer('out-of-order@example.com');
    const newer = stripeEvent(
      'customer.subscription.updated',
      subscriptionObject({ id: 'sub_ooo', customer: customerId, price: PRICES.team_monthly, status: 'past_due' }),
      { created: T0 + 100 },
    );
    const older = stripeEvent(
      'customer.subscription.updated',
      subscriptionObject({ id: 'sub_ooo', customer: customerId, price: PRICES.pro_monthly, status: 'active' }),
      { created: T0 + 50 },
    );
    expect((await deliver(newer)).body.data.applied).toBe(true);
    const late = await deliver(older);
    expect(late.status).toBe(200);
    expect(late.body.data).toMatchObject({ applied: false, reason: 'a newer event was already applied' });
    expect(await subscriptionOf(token)).toMatchObject({ plan: 'team', status: 'past_due' });

    // Once cancelled, an old "active" update cannot revive the subscription.
    const deleted = stripeEvent(
      'customer.subscription.deleted',
      subscriptionObject({ id: 'sub_ooo', customer: customerId, price: PRICES.team_monthly, status: 'canceled' }),
      { created: T0 + 200 },
    );
    expect((await deliver(deleted)).body.data.applied).toBe(true);
    expect(await subscriptionOf(token)).toMatchObject({
      plan: 'free',
      status: 'canceled',
      subscriptionId: 'sub_ooo',
      cancelAtPeriodEnd: false,
    });
    const stale = stripeEvent(
      'customer.subscription.updated',
      subscriptionObject({ id: 'sub_ooo', customer: customerId, price: PRICES.team_monthly }),
      { created: T0 + 150 },
    );
    expect((await deliver(stale)).body.data.applied).toBe(false);
    expect((await subscriptionOf(token)).plan).toBe('free');
  });

  it('a downgrade keeps existing workflows and refuses new ones over the free quota', async () => {
    const { token, userId, customerId } = await customer('downgraded@example.com');
    await deliver(
      stripeEvent('customer.subscription.created', subscriptionObject({ id: 'sub_dg', customer: customerId, price: PRICES.pro_monthly }), {
        created: T0,
      }),
    );
    await seedWorkflows(t, userId, 6);
    expect((await t.call('POST', '/v1/workflows', { token, body: { name: 'Seventh', manifest: MANIFEST } })).status).toBe(201);
    await deliver(
      stripeEvent('customer.subscription.deleted', subscriptionObject({ id: 'sub_dg', customer: customerId, status: 'canceled' }), {
        created: T0 + 60,
      }),
    );
    const refused = await t.call('POST', '/v1/workflows', { token, body: { name: 'Eighth', manifest: MANIFEST } });
    expect(refused.status).toBe(402);
    expect(refused.body.error.details).toMatchObject({ quota: 'workflows', limit: 5, used: 7 });
    expect((await t.call('GET', '/v1/users/me', { token })).body.data.workflowCount).toBe(7);
  });

  it('writes billing records for paid and failed invoices', async () => {
    const { userId, customerId } = await customer('invoices@example.com');
    const invoice = (id: string) => ({
      id,
      object: 'invoice',
      customer: customerId,
      number: `N-${id}`,
      amount_paid: 2900,
      amount_due: 2900,
      currency: 'usd',
      period_start: T0,
      period_end: T0 + 30 * 86400,
      attempt_count: 1,
      hosted_invoice_url: `https://invoice.stripe.test/${id}`,
      parent: { type: 'subscription_details', subscription_details: { subscription: 'sub_inv' } },
    });
    expect((await deliver(stripeEvent('invoice.payment_failed', invoice('in_1'), { created: T0 }))).status).toBe(200);
    expect((await deliver(stripeEvent('invoice.paid', invoice('in_2'), { created: T0 + 5 }))).status).toBe(200);
    const rows = await records(userId);
    expect(rows.map((r) => [r.kind, r.amount, r.currency])).toEqual([
      ['invoice_payment_failed', 2900, 'usd'],
      ['invoice_paid', 2900, 'usd'],
    ]);
    expect(rows[1]!.data).toMatchObject({
      invoiceId: 'in_2',
      subscriptionId: 'sub_inv',
      hostedInvoiceUrl: 'https://invoice.stripe.test/in_2',
    });
  });

  it('rejects a tampered payload, a missing or wrong signature with 400, and changes nothing', async () => {
    const { token, customerId } = await customer('tamper@example.com');
    const honest = stripeEvent(
      'customer.subscription.created',
      subscriptionObject({ id: 'sub_t', customer: customerId, price: PRICES.pro_monthly }),
      { created: T0 },
    );
    const tampered = honest.replace(PRICES.pro_monthly, PRICES.team_annual);
    const bad = await deliver(tampered, signature(honest));
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    expect((await deliver(honest, null)).status).toBe(400);
    expect((await deliver(honest, signature(honest, 'whsec_someone_else'))).status).toBe(400);
    expect((await deliver(honest, 'garbage')).status).toBe(400);
    // Too old a signature (a replay) is refused too.
    expect((await deliver(honest, signature(honest, undefined, Math.floor(Date.now() / 1000) - 3600))).status).toBe(400);
    expect((await subscriptionOf(token)).plan).toBe('free');
    expect((await t.call('GET', '/v1/billing/webhook')).status).toBe(405);
  });

  it('acknowledges events it does not handle and events of unknown customers', async () => {
    const other = await deliver(stripeEvent('customer.created', { id: 'cus_x', object: 'customer' }));
    expect(other.status).toBe(200);
    expect(other.body.data).toMatchObject({ applied: false, reason: 'event type not handled' });
    const stranger = await deliver(
      stripeEvent('customer.subscription.updated', subscriptionObject({ id: 'sub_nobody', customer: 'cus_nobody' })),
    );
    expect(stranger.status).toBe(200);
    expect(stranger.body.data.applied).toBe(false);
  });

  it('needs no bearer token and carries the rate-limit headers', async () => {
    const res = await deliver(stripeEvent('customer.created', { id: 'cus_y', object: 'customer' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  });
});
