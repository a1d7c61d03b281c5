import { Prisma } from '@prisma/client';

/** The SQL of the plans engine: the raw statements that lock a user with their plan and count a month's use. */

/**
 * Locks the user's row until the transaction ends and reads their subscription's plan and status
 * (both null without one), in one statement; no row when the account is gone.
 */
export const lockUserWithPlan = (userId: string) => Prisma.sql`
  SELECT u.id, s.plan, s.status
  FROM users u LEFT JOIN billing_subscriptions s ON s.user_id = u.id
  WHERE u.id = ${userId}
  FOR UPDATE OF u`;

/**
 * One conditional upsert: adds one to the user's counter of `metric` in `period` when it stays
 * within `limit`, and returns the new count (no row when it would not).
 */
export const countWithinLimit = (userId: string, metric: string, period: string, limit: number) => Prisma.sql`
  INSERT INTO usage_counters (user_id, metric, period, count)
  SELECT ${userId}, ${metric}, ${period}, 1 WHERE ${limit}::int >= 1
  ON CONFLICT (user_id, metric, period)
  DO UPDATE SET count = usage_counters.count + 1 WHERE usage_counters.count < ${limit}::int
  RETURNING count`;

/** Locks a team's row until the transaction ends and reads its billing owner; no row when the team is gone. */
export const lockTeamBillingOwner = (teamId: string) => Prisma.sql`
  SELECT billing_owner_id AS "billingOwnerId" FROM teams WHERE id = ${teamId} FOR UPDATE`;
