import type { Prisma } from '@prisma/client';
import type Stripe from 'stripe';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Database } from '../db/index.js';
import { isUniqueViolation } from '../db/errors.js';
import { AppError } from '../errors.js';
import type { Viewer } from '../auth/viewer.js';
import { isLiveStatus } from './statuses.js';
import { isMissingResource, notConfigured, planOfPriceKey, providerUnavailable, stripePriceOf, type PriceKey } from './stripe.js';

/**
 * What goes through Stripe for one user: the checkout that starts a subscription, the billing
 * portal, and the cancellation before an account is deleted.
 */

/** What these operations are given by the billing service. */
export interface CheckoutContext {
  prisma: Database['prisma'];
  stripe: Stripe | null;
  config: Config;
  clock: Clock;
}

const URL_MAX_LENGTH = 2048;

function requireStripe({ stripe }: CheckoutContext): Stripe {
  if (!stripe) throw notConfigured('STRIPE_SECRET_KEY is not set');
  return stripe;
}

/** An absolute http(s) URL, or a VALIDATION_ERROR naming the field. */
function checkRedirectUrl(field: string, value: string): string {
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // Reported below.
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || value.length > URL_MAX_LENGTH) {
    throw new AppError('VALIDATION_ERROR', `${field} must be an absolute http or https URL of at most ${URL_MAX_LENGTH} characters`, {
      fields: [{ field, message: `${field} must be an absolute http or https URL` }],
    });
  }
  return url.toString();
}

/** The user's Stripe customer, created on first need and reused afterwards. */
async function ensureCustomer({ prisma, clock }: CheckoutContext, client: Stripe, viewer: Viewer): Promise<string> {
  const existing = await prisma.billingSubscription.findUnique({ where: { userId: viewer.userId }, select: { customerId: true } });
  if (existing?.customerId) return existing.customerId;
  let customer: Stripe.Customer;
  try {
    // Concurrent first checkouts of one user share the idempotency key, so Stripe answers them
    // with the same customer instead of creating two.
    customer = await client.customers.create(
      { ...(viewer.email ? { email: viewer.email } : {}), metadata: { userId: viewer.userId } },
      { idempotencyKey: `wf-customer-${viewer.userId}` },
    );
  } catch (error) {
    throw providerUnavailable('create the customer', error);
  }
  try {
    await prisma.billingSubscription.upsert({
      where: { userId: viewer.userId },
      create: { userId: viewer.userId, customerId: customer.id, createdAt: clock.now() },
      update: {},
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  await prisma.billingSubscription.updateMany({ where: { userId: viewer.userId, customerId: null }, data: { customerId: customer.id } });
  const stored = await prisma.billingSubscription.findUniqueOrThrow({ where: { userId: viewer.userId }, select: { customerId: true } });
  return stored.customerId ?? customer.id;
}

export async function createCheckout(
  context: CheckoutContext,
  viewer: Viewer,
  input: { priceId: PriceKey; successUrl: string; cancelUrl: string },
): Promise<{ checkoutUrl: string }> {
  const successUrl = checkRedirectUrl('successUrl', input.successUrl);
  const cancelUrl = checkRedirectUrl('cancelUrl', input.cancelUrl);
  const { prisma, config } = context;
  const client = requireStripe(context);
  const price = stripePriceOf(config.stripe.prices, input.priceId);
  const current = await prisma.billingSubscription.findUnique({
    where: { userId: viewer.userId },
    select: { subscriptionId: true, status: true, plan: true },
  });
  if (current?.subscriptionId && isLiveStatus(current.status)) {
    // A second checkout would start a second subscription and charge twice.
    throw new AppError(
      'CONFLICT',
      `you already have a ${current.plan} subscription (${current.status}); change or cancel it in the billing portal (POST /v1/billing/portal)`,
      {
        subscriptionId: current.subscriptionId,
        status: current.status,
      },
    );
  }
  const customer = await ensureCustomer(context, client, viewer);
  let session: Stripe.Checkout.Session;
  try {
    session = await client.checkout.sessions.create({
      mode: 'subscription',
      customer,
      line_items: [{ price, quantity: 1 }],
      success_url: successUrl,
      cancel_url: cancelUrl,
      client_reference_id: viewer.userId,
      metadata: { userId: viewer.userId, priceKey: input.priceId },
      subscription_data: { metadata: { userId: viewer.userId, plan: planOfPriceKey(input.priceId) ?? 'free' } },
    });
  } catch (error) {
    throw providerUnavailable('start the checkout', error);
  }
  if (!session.url) throw providerUnavailable('start the checkout (no URL was returned)', null);
  return { checkoutUrl: session.url };
}

export async function createPortal(
  context: CheckoutContext,
  viewer: Viewer,
  input: { returnUrl?: string | null },
): Promise<{ portalUrl: string }> {
  const returnUrl = input.returnUrl === undefined || input.returnUrl === null ? undefined : checkRedirectUrl('returnUrl', input.returnUrl);
  const client = requireStripe(context);
  const { prisma } = context;
  const row = await prisma.billingSubscription.findUnique({ where: { userId: viewer.userId }, select: { customerId: true } });
  if (!row?.customerId) {
    throw new AppError('NOT_FOUND', 'you have no billing account yet: subscribe to a plan first (POST /v1/billing/checkout)', {
      resource: 'billing customer',
    });
  }
  try {
    const session = await client.billingPortal.sessions.create({
      customer: row.customerId,
      ...(returnUrl ? { return_url: returnUrl } : {}),
    });
    return { portalUrl: session.url };
  } catch (error) {
    throw providerUnavailable('open the billing portal', error);
  }
}

/**
 * Ends the user's subscription at the provider before their account is deleted, so nobody is
 * charged for an account that no longer exists. Runs before the deletion: if the provider
 * cannot be reached nothing is deleted and the user can retry.
 */
export async function cancelForDeletion({ prisma, stripe }: CheckoutContext, userId: string): Promise<void> {
  const row = await prisma.billingSubscription.findUnique({ where: { userId }, select: { subscriptionId: true, status: true } });
  if (!row?.subscriptionId || !isLiveStatus(row.status)) return;
  if (!stripe)
    throw notConfigured('STRIPE_SECRET_KEY is not set, so the paid subscription of this account cannot be cancelled before deleting it');
  try {
    await stripe.subscriptions.cancel(row.subscriptionId);
  } catch (error) {
    if (!isMissingResource(error)) throw providerUnavailable('cancel the subscription, so nothing was deleted', error);
  }
}

/**
 * Sets the number of seats the user's subscription bills (Stripe's subscription item `quantity`;
 * Stripe prorates the change). Nothing to do without a live subscription at the provider (free,
 * or a plan set up by hand); a provider that cannot be reached refuses, so the caller's
 * transaction, which made the change of members, rolls back and can be retried. `tx`: that
 * transaction, which the read joins.
 */
export async function setSeats(
  { prisma, stripe }: CheckoutContext,
  userId: string,
  seats: number,
  tx: Prisma.TransactionClient = prisma,
): Promise<void> {
  const row = await tx.billingSubscription.findUnique({ where: { userId }, select: { subscriptionId: true, status: true } });
  if (!row?.subscriptionId || !isLiveStatus(row.status) || !stripe) return;
  try {
    const subscription = await stripe.subscriptions.retrieve(row.subscriptionId);
    const item = subscription.items.data[0];
    if (!item || item.quantity === seats) return;
    await stripe.subscriptionItems.update(item.id, { quantity: seats, proration_behavior: 'create_prorations' });
  } catch (error) {
    throw providerUnavailable('change the number of seats of the subscription, so the team was not changed', error);
  }
}
