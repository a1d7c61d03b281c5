import Stripe from 'stripe';
import type { Config, StripePrices } from '../config.js';
import { AppError } from '../errors.js';
import { isPlanName, type PlanName } from '../limits/plans.js';

/**
 * The Stripe SDK, built from the configuration. STRIPE_API_URL points the SDK at another API
 * host (a local fake in tests, a proxy in restricted networks); its scheme, host and port become
 * the SDK's protocol, host and port options.
 */

export const PRICE_KEYS = ['pro_monthly', 'pro_annual', 'team_monthly', 'team_annual'] as const;
export type PriceKey = (typeof PRICE_KEYS)[number];

const PLAN_OF_PRICE_KEY: Record<PriceKey, PlanName> = {
  pro_monthly: 'pro',
  pro_annual: 'pro',
  team_monthly: 'team',
  team_annual: 'team',
};

export function createStripeClient(config: Config['stripe']): Stripe | null {
  if (!config.secretKey) return null;
  const options: Stripe.StripeConfig = {
    // Requests wait on these calls, so a slow provider must not hold them for the SDK's 80 s default.
    timeout: 10_000,
    maxNetworkRetries: 1,
    appInfo: { name: 'workflow-service' },
  };
  if (config.apiUrl) {
    const url = new URL(config.apiUrl);
    options.protocol = url.protocol === 'http:' ? 'http' : 'https';
    options.host = url.hostname;
    options.port = url.port || (url.protocol === 'http:' ? 80 : 443);
  }
  return new Stripe(config.secretKey, options);
}

export function notConfigured(what: string): AppError {
  return new AppError('BILLING_NOT_CONFIGURED', `billing is not configured on this service: ${what}`, { missing: what });
}

/** The Stripe price configured for a price key, or BILLING_NOT_CONFIGURED naming the variable. */
export function stripePriceOf(prices: StripePrices, key: PriceKey): string {
  const price = prices[key];
  if (!price) throw notConfigured(`STRIPE_PRICE_${key.toUpperCase()} is not set`);
  return price;
}

/**
 * The plan a subscription pays for: the plan of the configured price it uses (so an upgrade in
 * the billing portal, which changes the price, changes the plan), else its metadata `plan`
 * (enterprise contracts are set up by hand in Stripe with that metadata).
 */
export function planOfSubscription(prices: StripePrices, priceId: string | null, metadataPlan: unknown): PlanName | null {
  if (priceId) for (const key of PRICE_KEYS) if (prices[key] === priceId) return PLAN_OF_PRICE_KEY[key];
  return isPlanName(metadataPlan) ? metadataPlan : null;
}

export function planOfPriceKey(key: unknown): PlanName | null {
  return typeof key === 'string' && key in PLAN_OF_PRICE_KEY ? PLAN_OF_PRICE_KEY[key as PriceKey] : null;
}

/** Stripe's "no such resource": a subscription already gone is as good as cancelled. */
export function isMissingResource(error: unknown): boolean {
  return error instanceof Stripe.errors.StripeInvalidRequestError && (error.code === 'resource_missing' || error.statusCode === 404);
}

export function providerUnavailable(action: string, cause: unknown): AppError {
  const error = new AppError(
    'SERVICE_UNAVAILABLE',
    `the payment provider could not ${action}; try again shortly`,
    { provider: 'stripe' },
    { 'Retry-After': '5' },
  );
  error.cause = cause;
  return error;
}
