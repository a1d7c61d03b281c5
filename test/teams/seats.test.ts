import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { startAppWithFakeStripe, stopAppWithFakeStripe, type FakeStripe } from '../helpers/fake-stripe.js';
import { addMember, createTeam, tokenOfLink, userIdOf, verifyEmail } from './helpers.js';

/**
 * Plans and seats (docs/plans.md, "Teams and seats"): a team's plan is its billing owner's, more
 * than one member needs the team or enterprise plan, and the subscription's quantity follows the
 * members, through the fake Stripe the billing tests use.
 */
describe('team seats and plans', () => {
  let t: TestApp;
  let stripe: FakeStripe;

  beforeAll(async () => {
    ({ t, stripe } = await startAppWithFakeStripe({ PUBLIC_BASE_URL: 'http://127.0.0.1/v1' }));
  });
  afterAll(() => stopAppWithFakeStripe(t, stripe));

  /** A user on the team plan with a live subscription at the fake provider. */
  async function subscribedOwner(email: string): Promise<{ token: string; subscriptionId: string }> {
    const token = await t.token(email, { plan: 'free' });
    const userId = await userIdOf(t, token);
    const subscriptionId = `sub_${userId}`;
    stripe.subscriptions.set(subscriptionId, { id: subscriptionId, customer: `cus_${userId}`, status: 'active' });
    await t.database.db.prisma.billingSubscription.create({
      data: { userId, plan: 'team', status: 'active', subscriptionId, customerId: `cus_${userId}` },
    });
    return { token, subscriptionId };
  }

  it('refuses a second member for a free or pro billing owner with 402, saying why', async () => {
    for (const plan of ['free', 'pro'] as const) {
      const owner = await t.token(`${plan}-owner@example.com`, { plan });
      const teamId = await createTeam(t, owner, `${plan} team`);
      const res = await t.call('POST', `/v1/teams/${teamId}/invitations`, {
        token: owner,
        body: { email: 'someone@example.com', role: 'member' },
      });
      expect(res.status, res.text).toBe(402);
      expect(res.body.error.code).toBe('PLAN_LIMIT_EXCEEDED');
      expect(res.body.error.message).toContain('team or enterprise plan');
      expect(res.body.error.details).toMatchObject({ plan, quota: 'teamMembers', teamId });
    }
  });

  it('refuses to accept when the billing owner left the team plan after inviting', async () => {
    const owner = await t.token('lapsed@example.com', { plan: 'team' });
    const teamId = await createTeam(t, owner, 'Lapsed');
    const joiner = await t.token('joiner@example.com');
    await verifyEmail(t, 'joiner@example.com');
    const invited = await t.call('POST', `/v1/teams/${teamId}/invitations`, {
      token: owner,
      body: { email: 'joiner@example.com', role: 'member' },
    });
    expect(invited.status, invited.text).toBe(201);
    await t.database.db.prisma.billingSubscription.update({ where: { userId: await userIdOf(t, owner) }, data: { status: 'canceled' } });
    const accepted = await t.call('POST', `/v1/invitations/${tokenOfLink(invited.body.data.acceptUrl)}/accept`, {
      token: joiner,
      body: {},
    });
    expect(accepted.status, accepted.text).toBe(402);
  });

  it("sets the subscription's quantity to the members when they join and leave, prorated", async () => {
    const { token: owner, subscriptionId } = await subscribedOwner('payer@example.com');
    const teamId = await createTeam(t, owner, 'Seats');
    const bob = await t.token('seat-bob@example.com');
    const carol = await t.token('seat-carol@example.com');
    const start = stripe.quantityUpdates.length;
    const bobId = await addMember(t, owner, teamId, { token: bob, email: 'seat-bob@example.com' });
    expect(stripe.subscriptions.get(subscriptionId)?.quantity).toBe(2);
    await addMember(t, owner, teamId, { token: carol, email: 'seat-carol@example.com' });
    expect(stripe.subscriptions.get(subscriptionId)?.quantity).toBe(3);
    // A second team of the same billing owner with a member already counted adds no seat.
    const second = await createTeam(t, owner, 'Seats two');
    await addMember(t, owner, second, { token: bob, email: 'seat-bob@example.com' });
    expect(stripe.subscriptions.get(subscriptionId)?.quantity).toBe(3);
    const removed = await t.call('DELETE', `/v1/teams/${teamId}/members/${bobId}`, { token: owner });
    expect(removed.status, removed.text).toBe(200);
    expect(stripe.subscriptions.get(subscriptionId)?.quantity).toBe(3);
    expect((await t.call('DELETE', `/v1/teams/${second}/members/${bobId}`, { token: bob })).status).toBe(200);
    expect(stripe.subscriptions.get(subscriptionId)?.quantity).toBe(2);
    const updates = stripe.quantityUpdates.slice(start);
    expect(updates.map((u) => u.quantity)).toEqual([2, 3, 2]);
    expect(updates.every((u) => u.prorationBehavior === 'create_prorations')).toBe(true);
  });

  it('changes nothing when the provider cannot be reached: the join is refused and can be retried', async () => {
    const { token: owner, subscriptionId } = await subscribedOwner('outage@example.com');
    const teamId = await createTeam(t, owner, 'Outage');
    const dan = await t.token('outage-dan@example.com');
    await verifyEmail(t, 'outage-dan@example.com');
    const invited = await t.call('POST', `/v1/teams/${teamId}/invitations`, {
      token: owner,
      body: { email: 'outage-dan@example.com', role: 'member' },
    });
    const token = tokenOfLink(invited.body.data.acceptUrl);
    stripe.failing = true;
    try {
      const refused = await t.call('POST', `/v1/invitations/${token}/accept`, { token: dan, body: {} });
      expect(refused.status, refused.text).toBe(503);
    } finally {
      stripe.failing = false;
    }
    expect((await t.call('GET', `/v1/teams/${teamId}/members`, { token: owner })).body.data).toHaveLength(1);
    expect((await t.call('POST', `/v1/invitations/${token}/accept`, { token: dan, body: {} })).status).toBe(200);
    expect(stripe.subscriptions.get(subscriptionId)?.quantity).toBe(2);
  });

  it('hands billing to another owner only when they are on a plan for teams, moving the seats', async () => {
    const { token: owner, subscriptionId } = await subscribedOwner('first-payer@example.com');
    const teamId = await createTeam(t, owner, 'Handover');
    const freeOwner = await t.token('free-coowner@example.com', { plan: 'free' });
    const freeId = await addMember(t, owner, teamId, { token: freeOwner, email: 'free-coowner@example.com' });
    expect((await t.call('PATCH', `/v1/teams/${teamId}/members/${freeId}`, { token: owner, body: { role: 'owner' } })).status).toBe(200);
    const refused = await t.call('PUT', `/v1/teams/${teamId}/billing-owner`, { token: owner, body: { userId: freeId } });
    expect(refused.status, refused.text).toBe(402);
    expect(refused.body.error.code).toBe('PLAN_LIMIT_EXCEEDED');
    const { token: payer2, subscriptionId: sub2 } = await subscribedOwner('second-payer@example.com');
    const payer2Id = await addMember(t, owner, teamId, { token: payer2, email: 'second-payer@example.com' });
    expect(stripe.subscriptions.get(subscriptionId)?.quantity).toBe(3);
    expect((await t.call('PATCH', `/v1/teams/${teamId}/members/${payer2Id}`, { token: owner, body: { role: 'owner' } })).status).toBe(200);
    const handed = await t.call('PUT', `/v1/teams/${teamId}/billing-owner`, { token: owner, body: { userId: payer2Id } });
    expect(handed.status, handed.text).toBe(200);
    expect(handed.body.data.billingOwnerId).toBe(payer2Id);
    expect(stripe.subscriptions.get(sub2)?.quantity).toBe(3);
    expect(stripe.subscriptions.get(subscriptionId)?.quantity).toBe(1);
  });

  it("refuses to delete a sole owner's account, and deleting a member's account removes only the membership", async () => {
    const { token: owner, subscriptionId } = await subscribedOwner('keeper@example.com');
    const teamId = await createTeam(t, owner, 'Kept whole');
    const leaver = await t.token('leaver@example.com');
    await addMember(t, owner, teamId, { token: leaver, email: 'leaver@example.com' });
    expect(stripe.subscriptions.get(subscriptionId)?.quantity).toBe(2);
    const refused = await t.call('DELETE', '/v1/users/me', { token: owner });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error.details.reason).toBe('sole_team_owner');
    expect(refused.body.error.details.teams).toEqual([{ teamId, name: 'Kept whole' }]);
    expect((await t.call('GET', '/v1/users/me', { token: owner })).status).toBe(200);
    const deleted = await t.call('DELETE', '/v1/users/me', { token: leaver });
    expect(deleted.status, deleted.text).toBe(200);
    const members = await t.call('GET', `/v1/teams/${teamId}/members`, { token: owner });
    expect(members.body.data.map((m: { email: string }) => m.email)).toEqual(['keeper@example.com']);
    expect(stripe.subscriptions.get(subscriptionId)?.quantity).toBe(1);
    // Alone in the team, the owner may delete the account: the team goes with it.
    const alone = await t.call('DELETE', '/v1/users/me', { token: owner });
    expect(alone.status, alone.text).toBe(200);
  });
});
