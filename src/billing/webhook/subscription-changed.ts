import type Stripe from 'stripe';
import { planOfSubscription } from '../stripe.js';
import { applySubscriptionState, findUser, idOf, secondsToDate, writeRecord, type WebhookContext, type WebhookHandler } from './state.js';

/** The parts of a subscription the service keeps. Periods moved to the items in API 2025-03-31. */
function subscriptionState(ctx: WebhookContext, sub: Stripe.Subscription, previousPlan: string | null) {
  const item = sub.items?.data?.[0];
  const legacy = sub as unknown as { current_period_start?: number; current_period_end?: number };
  const priceId = item?.price?.id ?? null;
  const plan = planOfSubscription(ctx.prices, priceId, sub.metadata?.plan);
  return {
    plan: plan ?? (previousPlan === 'free' || previousPlan === null ? 'free' : undefined),
    status: sub.status,
    customerId: idOf(sub.customer),
    subscriptionId: sub.id,
    priceId,
    currentPeriodStart: secondsToDate(item?.current_period_start ?? legacy.current_period_start),
    currentPeriodEnd: secondsToDate(item?.current_period_end ?? legacy.current_period_end),
    // A cancellation scheduled for a date (`cancel_at`, what the portal sets in newer API versions)
    // ends the subscription just the same.
    cancelAtPeriodEnd: sub.cancel_at_period_end || sub.cancel_at !== null,
  } as const;
}

/**
 * customer.subscription.created and .updated: the plan follows the subscription's price; status,
 * period and a scheduled cancellation are kept as the provider reports them.
 */
export const subscriptionChanged: WebhookHandler = async (ctx) => {
  const sub = ctx.event.data.object as Stripe.Subscription;
  const userId = await findUser(ctx.tx, sub.metadata?.userId, idOf(sub.customer));
  if (!userId) return { userId: null, applied: false, reason: 'no user for this customer' };
  const before = await ctx.tx.billingSubscription.findUnique({ where: { userId }, select: { plan: true } });
  const state = subscriptionState(ctx, sub, before?.plan ?? null);
  const outcome = await applySubscriptionState(ctx, userId, state);
  if (outcome.applied) {
    await writeRecord(ctx, userId, {
      kind: ctx.event.type === 'customer.subscription.created' ? 'subscription_created' : 'subscription_updated',
      data: {
        subscriptionId: sub.id,
        plan: state.plan ?? before?.plan ?? null,
        previousPlan: before?.plan ?? null,
        status: sub.status,
        priceId: state.priceId,
        cancelAtPeriodEnd: state.cancelAtPeriodEnd,
      },
    });
  }
  return outcome;
};
