import type { Prisma } from '@prisma/client';
import Stripe from 'stripe';
import { BoundedCache } from '../cache/bounded.js';
import { isUniqueViolation } from '../db/errors.js';
import { AppError } from '../errors.js';
import type { Viewer } from '../auth/viewer.js';
import { effectivePlan, type PlanName } from '../limits/plans.js';
import { PLAN_OF_USER } from './sql.js';
import type { ServiceDeps } from '../service-deps.js';
import {
  createStripeClient,
  isMissingResource,
  notConfigured,
  planOfPriceKey,
  PRICE_KEYS,
  providerUnavailable,
  stripePriceOf,
  type PriceKey,
} from './stripe.js';
import { isLiveStatus } from './statuses.js';
import { applyStripeEvent } from './webhook/apply.js';

/** The billing subscription of spec 2.7. */
export interface BillingSubscriptionDto {
  plan: PlanName;
  status: string;
  customerId: string | null;
  subscriptionId: string | null;
  currentPeriodStart: string | null;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
}

// Rate limiting reads the plan on every request; a plan change reaches other instances within this.
const PLAN_CACHE_MS = 15_000;
const PLAN_CACHE_MAX = 50_000;
const URL_MAX_LENGTH = 2048;

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

/**
 * The plan in force for a user, read through Prisma (inside a transaction when given one): for the
 * quotas, the usage report and GraphQL's `plan`. The rate limiter's cached read sends the same
 * query as the named statement PLAN_OF_USER (src/billing/sql.ts), and account-wide locks read it
 * together with the lock (`lockUserPlan` in src/limits/quota.ts); all three decide the plan with
 * the one `effectivePlan`.
 */
export async function readPlan(db: Prisma.TransactionClient, userId: string): Promise<PlanName> {
  const sub = await db.billingSubscription.findUnique({ where: { userId }, select: { plan: true, status: true } });
  return effectivePlan(sub);
}

export function createBillingService({ db, config, clock }: ServiceDeps) {
  const prisma = db.prisma;
  const stripe = createStripeClient(config.stripe);
  const planCache = new BoundedCache<string, { plan: PlanName; expiresAt: number }>('plans', PLAN_CACHE_MAX);

  function requireStripe(): Stripe {
    if (!stripe) throw notConfigured('STRIPE_SECRET_KEY is not set');
    return stripe;
  }

  /** The plan in force, cached briefly: the rate limiter asks on every request. */
  async function planOf(userId: string): Promise<PlanName> {
    const now = Date.now();
    const hit = planCache.get(userId, (entry) => entry.expiresAt > now);
    if (hit) return hit.plan;
    const [subscription] = await db.read<{ plan: string; status: string }>(PLAN_OF_USER, [userId]);
    const plan = effectivePlan(subscription);
    planCache.set(userId, { plan, expiresAt: now + PLAN_CACHE_MS });
    return plan;
  }

  function forgetPlan(userId: string): void {
    planCache.delete(userId);
  }

  async function getSubscription(viewer: Pick<Viewer, 'userId'>): Promise<BillingSubscriptionDto> {
    const row = await prisma.billingSubscription.findUnique({ where: { userId: viewer.userId } });
    return {
      plan: effectivePlan(row),
      status: row?.status ?? 'active',
      customerId: row?.customerId ?? null,
      subscriptionId: row?.subscriptionId ?? null,
      currentPeriodStart: row?.currentPeriodStart?.toISOString() ?? null,
      currentPeriodEnd: row?.currentPeriodEnd?.toISOString() ?? null,
      cancelAtPeriodEnd: row?.cancelAtPeriodEnd ?? false,
    };
  }

  /** The user's Stripe customer, created on first need and reused afterwards. */
  async function ensureCustomer(client: Stripe, viewer: Viewer): Promise<string> {
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

  async function createCheckout(
    viewer: Viewer,
    input: { priceId: PriceKey; successUrl: string; cancelUrl: string },
  ): Promise<{ checkoutUrl: string }> {
    const successUrl = checkRedirectUrl('successUrl', input.successUrl);
    const cancelUrl = checkRedirectUrl('cancelUrl', input.cancelUrl);
    const client = requireStripe();
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
    const customer = await ensureCustomer(client, viewer);
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

  async function createPortal(viewer: Viewer, input: { returnUrl?: string | null }): Promise<{ portalUrl: string }> {
    const returnUrl =
      input.returnUrl === undefined || input.returnUrl === null ? undefined : checkRedirectUrl('returnUrl', input.returnUrl);
    const client = requireStripe();
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
  async function cancelForDeletion(userId: string): Promise<void> {
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
  async function setSeats(userId: string, seats: number, tx: Prisma.TransactionClient = prisma): Promise<void> {
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

  return {
    stripe,
    setSeats,
    /** What a checkout can be started for on this service: none when billing is not configured. */
    checkoutPrices: (): PriceKey[] => (stripe ? PRICE_KEYS.filter((key) => !!config.stripe.prices[key]) : []),
    planOf,
    forgetPlan,
    currentPlan: (userId: string) => readPlan(prisma, userId),
    getSubscription,
    createCheckout,
    createPortal,
    cancelForDeletion,
    /** Applies a verified Stripe event once; a change of the user's plan state drops their cached plan. */
    async applyWebhookEvent(event: Stripe.Event) {
      const applied = await applyStripeEvent({ db, config, clock }, event);
      if (applied.outcome.applied && applied.outcome.userId) forgetPlan(applied.outcome.userId);
      return applied;
    },
  };
}
