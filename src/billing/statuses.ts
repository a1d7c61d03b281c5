/**
 * The provider's subscription statuses, sorted the two ways the service needs. They are two sets
 * on purpose, named here side by side so that a change to one is made looking at the other.
 *
 * - LIVE: the subscription still exists at the provider and charges, or may still charge, the
 *   customer. A second checkout is refused while one is live (it would charge twice), account
 *   deletion cancels a live one first, and a webhook about another, ended subscription does not
 *   replace a live one.
 * - PLAN_GRANTING: the paid plan is in force. `past_due` keeps it while the provider retries the
 *   payment. The other live statuses (`unpaid`, `incomplete`, `paused`) still bind the customer
 *   but give the free plan's limits until they are paid or end.
 *
 * Every plan-granting status is live; `canceled` and `incomplete_expired` are neither.
 */
const LIVE_STATUSES: ReadonlySet<string> = new Set(['active', 'trialing', 'past_due', 'unpaid', 'incomplete', 'paused']);
const PLAN_GRANTING_STATUSES: ReadonlySet<string> = new Set(['active', 'trialing', 'past_due']);

/** Whether a subscription in this status still charges or may charge the customer. */
export function isLiveStatus(status: string): boolean {
  return LIVE_STATUSES.has(status);
}

/** Whether a subscription in this status puts its paid plan in force. */
export function grantsPlan(status: string): boolean {
  return PLAN_GRANTING_STATUSES.has(status);
}
