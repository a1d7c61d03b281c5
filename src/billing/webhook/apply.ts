import type Stripe from 'stripe';
import type { ServiceDeps } from '../../service-deps.js';
import { checkoutSessionCompleted } from './checkout-session-completed.js';
import { invoicePaid } from './invoice-paid.js';
import { invoicePaymentFailed } from './invoice-payment-failed.js';
import type { WebhookHandler, WebhookOutcome } from './state.js';
import { subscriptionChanged } from './subscription-changed.js';
import { subscriptionDeleted } from './subscription-deleted.js';

const HANDLERS: Record<string, WebhookHandler> = {
  'checkout.session.completed': checkoutSessionCompleted,
  'customer.subscription.created': subscriptionChanged,
  'customer.subscription.updated': subscriptionChanged,
  'customer.subscription.deleted': subscriptionDeleted,
  'invoice.paid': invoicePaid,
  'invoice.payment_failed': invoicePaymentFailed,
};

/**
 * Applies a verified Stripe event at most once: its id goes into ProcessedEvent in the same
 * transaction as its effect, so a redelivery, or two deliveries racing on two instances, find it
 * there and change nothing. A failure rolls both back (Stripe delivers again later).
 */
export async function applyStripeEvent(
  { db, config, clock }: ServiceDeps,
  event: Stripe.Event,
): Promise<{ duplicate: boolean; outcome: WebhookOutcome }> {
  const handler = HANDLERS[event.type];
  const now = clock.now();
  let duplicate = false;
  let outcome: WebhookOutcome = { userId: null, applied: false, reason: 'event type not handled' };
  await db.prisma.$transaction(async (tx) => {
    const claimed = await tx.processedEvent.createMany({
      data: [{ id: event.id, type: event.type, processedAt: now }],
      skipDuplicates: true,
    });
    if (claimed.count === 0) {
      duplicate = true;
      return;
    }
    if (handler) outcome = await handler({ tx, event, eventAt: new Date(event.created * 1000), prices: config.stripe.prices, now });
  });
  return { duplicate, outcome };
}
