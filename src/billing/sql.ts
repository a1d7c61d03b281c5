import type { Statement } from '../db/statement.js';

/**
 * The SQL of billing: the plan and status of a user's subscription ($1; no row on the free plan),
 * read by the rate limiter's plan cache on every cache miss, which is every user's first request
 * in each cache period. It is a named statement for the same reason as the viewer's: on the
 * hottest routes Prisma's query path costs more CPU than the read itself (docs/decisions.md, "SQL").
 * The plan in force is decided from the row by `effectivePlan`, as for
 * every other read of it.
 */
export const PLAN_OF_USER: Statement = {
  name: 'billing_plan_of_user',
  text: 'SELECT plan, status FROM billing_subscriptions WHERE user_id = $1',
};
