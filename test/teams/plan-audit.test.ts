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
import { createTeam, userIdOf } from './helpers.js';

/**
 * A plan change arriving from Stripe is written in the audit log of every team whose billing
 * owner's plan changed (docs/teams.md, "Audit log"), once per change, and nowhere else.
 */
describe('plan changes in team audit logs', () => {
  let stripe: FakeStripe;
  let t: TestApp;
  beforeAll(async () => ({ stripe, t } = await startAppWithFakeStripe()));
  afterAll(() => stopAppWithFakeStripe(t, stripe));

  const deliver = (payload: string) =>
    t.call('POST', '/v1/billing/webhook', {
      rawBody: payload,
      headers: { 'content-type': 'application/json', 'stripe-signature': signature(payload) },
    });
  const planEntries = async (token: string, teamId: string) => {
    const log = await t.call('GET', `/v1/teams/${teamId}/audit-log`, { token });
    expect(log.status, log.text).toBe(200);
    return (log.body.data as { action: string; actorUserId: string | null; targetId: string; details: any }[]).filter(
      (e) => e.action === 'plan.changed',
    );
  };
  const T0 = Math.floor(Date.now() / 1000) - 3600;

  it('writes plan.changed in each team the user pays for when the plan in force changes', async () => {
    const token = await t.token('payer@example.com', { plan: 'free' });
    const userId = await userIdOf(t, token);
    const checkout = await t.call('POST', '/v1/billing/checkout', {
      token,
      body: { priceId: 'pro_monthly', successUrl: 'https://a.example/ok', cancelUrl: 'https://a.example/no' },
    });
    expect(checkout.status).toBe(200);
    const customerId = (await t.call('GET', '/v1/billing/subscription', { token })).body.data.customerId as string;
    const first = await createTeam(t, token, 'First');
    const second = await createTeam(t, token, 'Second');
    // A team someone else pays for is not concerned.
    const other = await t.token('other-payer@example.com');
    const unrelated = await createTeam(t, other, 'Unrelated');

    const sub = (price: string, created: number, extra: Record<string, unknown> = {}) =>
      stripeEvent(
        'customer.subscription.updated',
        subscriptionObject({ id: 'sub_plan_1', customer: customerId, price, periodStart: T0, periodEnd: T0 + 30 * 86400, ...extra }),
        { created },
      );
    const toPro = sub(PRICES.pro_monthly, T0);
    expect((await deliver(toPro)).body.data.applied).toBe(true);
    // The same event again changes nothing; an event that keeps the plan writes nothing.
    expect((await deliver(toPro)).body.data.duplicate).toBe(true);
    expect((await deliver(sub(PRICES.pro_monthly, T0 + 5, { cancelAtPeriodEnd: true }))).body.data.applied).toBe(true);
    expect((await deliver(sub(PRICES.team_annual, T0 + 10))).body.data.applied).toBe(true);

    for (const teamId of [first, second]) {
      const entries = await planEntries(token, teamId);
      expect(entries.map((e) => [e.details.from, e.details.to])).toEqual([
        ['pro', 'team'],
        ['free', 'pro'],
      ]);
      expect(entries[0]).toMatchObject({ actorUserId: null, targetId: userId });
    }
    expect(await planEntries(other, unrelated)).toEqual([]);

    const ended = stripeEvent(
      'customer.subscription.deleted',
      subscriptionObject({ id: 'sub_plan_1', customer: customerId, price: PRICES.team_annual, status: 'canceled' }),
      { created: T0 + 20 },
    );
    expect((await deliver(ended)).body.data.applied).toBe(true);
    expect((await planEntries(token, first))[0]!.details).toMatchObject({ from: 'team', to: 'free' });
  });
});
