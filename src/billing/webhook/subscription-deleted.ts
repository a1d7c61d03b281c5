import type Stripe from 'stripe';
import { applySubscriptionState, findUser, idOf, secondsToDate, writeRecord, type WebhookHandler } from './state.js';

/**
 * customer.subscription.deleted: the subscription has ended. The user is back on free; what they
 * own stays, and new resources are refused above the free quotas.
 */
export const subscriptionDeleted: WebhookHandler = async (ctx) => {
  const sub = ctx.event.data.object as Stripe.Subscription;
  const userId = await findUser(ctx.tx, sub.metadata?.userId, idOf(sub.customer));
  if (!userId) return { userId: null, applied: false, reason: 'no user for this customer' };
  const before = await ctx.tx.billingSubscription.findUnique({ where: { userId }, select: { plan: true } });
  const item = sub.items?.data?.[0];
  const outcome = await applySubscriptionState(ctx, userId, {
    plan: 'free',
    status: 'canceled',
    customerId: idOf(sub.customer),
    subscriptionId: sub.id,
    cancelAtPeriodEnd: false,
    ...(item
      ? { currentPeriodStart: secondsToDate(item.current_period_start), currentPeriodEnd: secondsToDate(item.current_period_end) }
      : {}),
  });
  if (outcome.applied) {
    await writeRecord(ctx, userId, {
      kind: 'subscription_canceled',
      data: {
        subscriptionId: sub.id,
        previousPlan: before?.plan ?? null,
        endedAt: secondsToDate(sub.ended_at ?? null)?.toISOString() ?? null,
      },
    });
  }
  return outcome;
};
