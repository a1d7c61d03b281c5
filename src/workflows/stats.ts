import type { Workflow } from '@prisma/client';

/**
 * A workflow's marketplace figures, computed here once for every face: the REST answers and
 * GraphQL types of workflows and the marketplace (spec 2.3 `stats`), and the workflows bundled in
 * a deployment (`DeploymentWorkflowStats`, read with the deployment's bundle).
 */

/** The columns the figures come from (kept up to date by forks, subscriptions and reviews). */
export type StatsColumns = Pick<Workflow, 'forksCount' | 'subscribersCount' | 'ratingSum' | 'ratingCount'>;

/**
 * The mean of a workflow's ratings, rounded to one decimal; null while it has none. The one
 * computation of a mean rating: each field that shows one is a presentation of this value.
 */
function meanRating(ratingSum: number, ratingCount: number): number | null {
  if (ratingCount <= 0) return null;
  return Math.round((ratingSum / ratingCount) * 10) / 10;
}

/** Spec 2.3 `stats`: every figure a number, so `rating` is 0 while there is no rating. */
export interface WorkflowStats {
  forks: number;
  subscribers: number;
  rating: number;
  ratingCount: number;
}

export function workflowStats(w: StatsColumns): WorkflowStats {
  return {
    forks: w.forksCount,
    subscribers: w.subscribersCount,
    rating: meanRating(w.ratingSum, w.ratingCount) ?? 0,
    ratingCount: w.ratingCount,
  };
}

/**
 * The figures of a workflow in a deployment (GraphQL only, not in the specification): the same
 * mean as `stats.rating`, written null rather than 0 while there is no rating.
 */
export interface DeploymentWorkflowStats {
  subscribersCount: number;
  forksCount: number;
  ratingCount: number;
  averageRating: number | null;
}

export function deploymentWorkflowStats(w: StatsColumns): DeploymentWorkflowStats {
  return {
    subscribersCount: w.subscribersCount,
    forksCount: w.forksCount,
    ratingCount: w.ratingCount,
    averageRating: meanRating(w.ratingSum, w.ratingCount),
  };
}
