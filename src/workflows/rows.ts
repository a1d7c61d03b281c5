import type { Statement } from '../db/index.js';

/**
 * The workflows columns under Prisma's field names, so a row read with SQL has exactly the shape
 * of Prisma's `Workflow` (the search document, which Prisma does not model, is left out).
 */
export const WORKFLOW_COLUMNS = `id, owner_id AS "ownerId", name, description, visibility, category, tags,
  allow_forks AS "allowForks", current_version AS "currentVersion", manifest,
  forked_from_workflow_id AS "forkedFromWorkflowId", forked_from_user_id AS "forkedFromUserId",
  forked_from_version AS "forkedFromVersion", forks_count AS "forksCount",
  subscribers_count AS "subscribersCount", rating_sum AS "ratingSum", rating_count AS "ratingCount",
  published_at AS "publishedAt", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** One workflow by id ($1). */
export const WORKFLOW_BY_ID: Statement = { name: 'workflow_by_id', text: `SELECT ${WORKFLOW_COLUMNS} FROM workflows WHERE id = $1` };
