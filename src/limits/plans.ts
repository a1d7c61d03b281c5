import { grantsPlan } from '../billing/statuses.js';

/**
 * The plans as data (spec section 8). Everything that limits a user reads its numbers here,
 * so a change of offer is a change of this table and of docs/plans.md, nothing else.
 */
const PLAN_NAMES = ['free', 'pro', 'team', 'enterprise'] as const;

export type PlanName = (typeof PLAN_NAMES)[number];

export interface PlanLimits {
  plan: PlanName;
  requestsPerMinute: number;
  requestsPerHour: number;
  /**
   * The dashboard's own budget (requests made with the browser session cookie), counted apart from
   * requestsPerMinute/Hour so a person using the dashboard never spends what their IDE and scripts
   * (tokens and API keys) may use, and the reverse. At least the plan's API rate, and never below
   * what a person at a keyboard makes (docs/plans.md, "The dashboard's budget").
   */
  sessionRequestsPerMinute: number;
  sessionRequestsPerHour: number;
  /** Workflows the user owns, forks included. */
  workflows: number;
  deployments: number;
  /** Library entries with sourceType subscribed. */
  subscriptions: number;
  /**
   * Tool-endpoint connections per UTC calendar month, over all the user's deployments (a
   * connection: the first served request of a caller on an adapter of a deployment in a UTC day;
   * docs/plans.md).
   */
  connectionsPerMonth: number;
  /** Recorded versions of one workflow (its history); an update that would record one more is refused. */
  versionsPerWorkflow: number;
  /** Personal API keys the user may hold at once. */
  apiKeys: number;
  /**
   * The part of `connectionsPerMonth` that callers other than the owner (anonymous clients of an
   * `allowAnonymous` deployment) may use; the rest stays the owner's own, whatever they do.
   */
  anonymousConnectionsPerMonth: number;
}

/**
 * Paid quotas are finite on purpose: every consumer (the usage route, GraphQL, the 402 details)
 * can then report `limit` and `remaining` as plain integers, and even an enterprise account cannot
 * exhaust the service by accident. A contract that needs more changes this table.
 */
const PLANS: Record<PlanName, PlanLimits> = {
  free: {
    plan: 'free',
    requestsPerMinute: 30,
    requestsPerHour: 500,
    sessionRequestsPerMinute: 120,
    sessionRequestsPerHour: 3_000,
    workflows: 5,
    deployments: 1,
    subscriptions: 20,
    connectionsPerMonth: 500,
    versionsPerWorkflow: 100,
    apiKeys: 5,
    anonymousConnectionsPerMonth: 250,
  },
  pro: {
    plan: 'pro',
    requestsPerMinute: 100,
    requestsPerHour: 5_000,
    sessionRequestsPerMinute: 200,
    sessionRequestsPerHour: 6_000,
    workflows: 100,
    deployments: 10,
    subscriptions: 200,
    connectionsPerMonth: 50_000,
    versionsPerWorkflow: 1_000,
    apiKeys: 25,
    anonymousConnectionsPerMonth: 25_000,
  },
  team: {
    plan: 'team',
    requestsPerMinute: 300,
    requestsPerHour: 20_000,
    sessionRequestsPerMinute: 400,
    sessionRequestsPerHour: 20_000,
    workflows: 500,
    deployments: 50,
    subscriptions: 1_000,
    connectionsPerMonth: 250_000,
    versionsPerWorkflow: 1_000,
    apiKeys: 100,
    anonymousConnectionsPerMonth: 125_000,
  },
  enterprise: {
    plan: 'enterprise',
    requestsPerMinute: 1_000,
    requestsPerHour: 100_000,
    sessionRequestsPerMinute: 1_000,
    sessionRequestsPerHour: 100_000,
    workflows: 10_000,
    deployments: 1_000,
    subscriptions: 10_000,
    connectionsPerMonth: 5_000_000,
    versionsPerWorkflow: 5_000,
    apiKeys: 500,
    anonymousConnectionsPerMonth: 2_500_000,
  },
};

/**
 * Named request budgets beside the plans' rates: counted per client address like the anonymous
 * limit, for work an unauthenticated caller can start that costs more than a request (a stored
 * row, an outbound fetch). The OAuth authorization server charges them before doing the work, on
 * top of the address's own budget (src/limits/http.ts).
 */
const BUDGETS = {
  /** Dynamic client registrations (each stores a client for a day unless it gets a grant). */
  'oauth-registration': { perMinute: 5, perHour: 20 },
  /** Authorization requests (each may store an interaction and fetch a client ID metadata document). */
  'oauth-authorization': { perMinute: 20, perHour: 200 },
} as const satisfies Record<string, RateBudget>;

export type BudgetName = keyof typeof BUDGETS;

/** The rates of a named budget. */
export function namedBudget(name: BudgetName): RateBudget {
  return BUDGETS[name];
}

export function isPlanName(value: unknown): value is PlanName {
  return typeof value === 'string' && (PLAN_NAMES as readonly string[]).includes(value);
}

/** The limits of a plan; anything unknown gets the free plan's, never more. */
export function planLimits(plan: string | null | undefined): PlanLimits {
  return isPlanName(plan) ? PLANS[plan] : PLANS.free;
}

/** A rate-limit budget: requests per fixed minute and per fixed hour. */
export interface RateBudget {
  perMinute: number;
  perHour: number;
}

/**
 * What a request may spend under `plan`: `api` for tokens and API keys (REST, GraphQL, the tool
 * endpoint; spec section 8) and for anonymous or unidentified callers, `session` for the
 * dashboard's requests with the browser session cookie.
 */
export function rateBudget(plan: string | null | undefined, kind: 'api' | 'session'): RateBudget {
  const limits = planLimits(plan);
  return kind === 'session'
    ? { perMinute: limits.sessionRequestsPerMinute, perHour: limits.sessionRequestsPerHour }
    : { perMinute: limits.requestsPerMinute, perHour: limits.requestsPerHour };
}

/** The plan in force for a stored subscription row (or none: free; src/billing/statuses.ts says which statuses grant it). */
export function effectivePlan(subscription: { plan: string; status: string } | null | undefined): PlanName {
  if (!subscription || !grantsPlan(subscription.status)) return 'free';
  return isPlanName(subscription.plan) ? subscription.plan : 'free';
}

/** The quota period of a moment: its UTC calendar month, `YYYY-MM`. */
export function usagePeriod(at: Date): string {
  return at.toISOString().slice(0, 7);
}
