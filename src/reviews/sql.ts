import { Prisma } from '@prisma/client';

/** The SQL of reviews: the raw statements of the reviews service. */

/** A review ($reviewId of $workflowId) with its author and rating, locked until the transaction ends. */
export const lockReview = (workflowId: string, reviewId: string) => Prisma.sql`
  SELECT user_id, rating FROM reviews WHERE id = ${reviewId} AND workflow_id = ${workflowId} FOR UPDATE`;

/** Adds to a workflow's rating sum and count (negative to take a review off). */
export const ratingChange = (workflowId: string, sumDelta: number, countDelta: number) => Prisma.sql`
  UPDATE workflows SET rating_sum = rating_sum + ${sumDelta}::int, rating_count = rating_count + ${countDelta}::int
  WHERE id = ${workflowId}`;
