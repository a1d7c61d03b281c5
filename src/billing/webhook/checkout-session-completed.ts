import type Stripe from 'stripe';
import { planOfPriceKey } from '../stripe.js';
import { applySubscriptionState, findUser, idOf, writeRecord, type WebhookHandler } from './state.js';

/**
 * A checkout finished: links the customer and the subscription to the user who started it. The
 * subscription's own events carry its price, status and period; when they arrived first they are
 * authoritative and the checkout only links the customer. Otherwise the plan bought (recorded in
 * the session's metadata) applies at once, so the user does not wait for the next event.
 */
export const checkoutSessionCompleted: WebhookHandler = async (ctx) => {
  const session = ctx.event.data.object as Stripe.Checkout.Session;
  if (session.mode !== 'subscription') return { userId: null, applied: false, reason: 'not a subscription checkout' };
  const customerId = idOf(session.customer);
  const subscriptionId = idOf(session.subscription);
  const userId = await findUser(ctx.tx, session.client_reference_id ?? session.metadata?.userId, customerId);
  if (!userId) return { userId: null, applied: false, reason: 'no user for this checkout' };
  const known = await ctx.tx.billingSubscription.findUnique({ where: { userId }, select: { subscriptionId: true } });
  const paid = session.payment_status === 'paid' || session.payment_status === 'no_payment_required';
  const plan = planOfPriceKey(session.metadata?.priceKey);
  const outcome =
    known?.subscriptionId && known.subscriptionId === subscriptionId
      ? await applySubscriptionState(ctx, userId, { customerId })
      : await applySubscriptionState(ctx, userId, {
          customerId,
          subscriptionId,
          ...(plan && paid ? { plan, status: 'active', cancelAtPeriodEnd: false } : {}),
        });
  if (outcome.applied)
    await writeRecord(ctx, userId, {
      kind: 'checkout_completed',
      amount: session.amount_total,
      currency: session.currency,
      data: { sessionId: session.id, subscriptionId, priceKey: session.metadata?.priceKey ?? null },
    });
  return outcome;
};
