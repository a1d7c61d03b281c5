import type { Prisma } from '@prisma/client';
import Stripe from 'stripe';
import { BoundedCache } from '../cache/bounded.js';
import type { Viewer } from '../auth/viewer.js';
import { effectivePlan, type PlanName } from '../limits/plans.js';
import { PLAN_OF_USER } from './sql.js';
import type { ServiceDeps } from '../service-deps.js';
import { createStripeClient, PRICE_KEYS, type PriceKey } from './stripe.js';
import { applyStripeEvent } from './webhook/apply.js';
import { cancelForDeletion, createCheckout, createPortal, setSeats, type CheckoutContext } from './checkout.js';
import type { Database } from '../db/index.js';

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

/** The billing subscription of spec 2.7 as the user sees it (a free plan when there is none). */
async function getSubscription(prisma: Database['prisma'], viewer: Pick<Viewer, 'userId'>): Promise<BillingSubscriptionDto> {
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

export function createBillingService({ db, config, clock }: ServiceDeps) {
  const prisma = db.prisma;
  const stripe = createStripeClient(config.stripe);
  const checkout: CheckoutContext = { prisma, stripe, config, clock };
  const planCache = new BoundedCache<string, { plan: PlanName; expiresAt: number }>('plans', PLAN_CACHE_MAX);

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

  return {
    stripe,
    setSeats: (userId: string, seats: number, tx?: Prisma.TransactionClient) => setSeats(checkout, userId, seats, tx),
    /** What a checkout can be started for on this service: none when billing is not configured. */
    checkoutPrices: (): PriceKey[] => (stripe ? PRICE_KEYS.filter((key) => !!config.stripe.prices[key]) : []),
    planOf,
    forgetPlan,
    currentPlan: (userId: string) => readPlan(prisma, userId),
    getSubscription: (viewer: Pick<Viewer, 'userId'>) => getSubscription(prisma, viewer),
    createCheckout: (viewer: Viewer, input: Parameters<typeof createCheckout>[2]) => createCheckout(checkout, viewer, input),
    createPortal: (viewer: Viewer, input: Parameters<typeof createPortal>[2]) => createPortal(checkout, viewer, input),
    cancelForDeletion: (userId: string) => cancelForDeletion(checkout, userId),
    /** Applies a verified Stripe event once; a change of the user's plan state drops their cached plan. */
    async applyWebhookEvent(event: Stripe.Event) {
      const applied = await applyStripeEvent({ db, config, clock }, event);
      if (applied.outcome.applied && applied.outcome.userId) forgetPlan(applied.outcome.userId);
      return applied;
    },
  };
}
