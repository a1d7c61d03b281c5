import type { Statement } from '../db/index.js';

/**
 * The workflows columns under Prisma's field names, so a row read with SQL has exactly the shape
 * of Prisma's `Workflow` (the search document, which Prisma does not model, is left out). The
 * jsonb manifest is sent only for rows without the written text, which is what answers show.
 */
export const WORKFLOW_COLUMNS = `id, owner_id AS "ownerId", name, description, visibility, category, tags,
  allow_forks AS "allowForks", current_version AS "currentVersion",
  CASE WHEN manifest_text IS NULL THEN manifest END AS manifest, manifest_text AS "manifestText",
  forked_from_workflow_id AS "forkedFromWorkflowId", forked_from_user_id AS "forkedFromUserId",
  forked_from_version AS "forkedFromVersion", forks_count AS "forksCount",
  subscribers_count AS "subscribersCount", rating_sum AS "ratingSum", rating_count AS "ratingCount",
  published_at AS "publishedAt", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** One workflow by id ($1). */
export const WORKFLOW_BY_ID: Statement = { name: 'workflow_by_id', text: `SELECT ${WORKFLOW_COLUMNS} FROM workflows WHERE id = $1` };

/**
 * A page of an owner's workflows, newest first: owner $1, then the optional visibility and the
 * cursor position (created_at, id), and the row count last. One statement per combination, so
 * each keeps a plan that uses the (owner_id, created_at, id) index.
 */
export function workflowsOfOwner(withVisibility: boolean, withCursor: boolean): Statement {
  return WORKFLOWS_OF_OWNER[Number(withVisibility) * 2 + Number(withCursor)]!;
}

const WORKFLOWS_OF_OWNER: Statement[] = [false, true].flatMap((visibility) =>
  [false, true].map((cursor) => {
    const conditions = ['owner_id = $1'];
    let n = 1;
    if (visibility) conditions.push(`visibility = $${++n}::"Visibility"`);
    if (cursor) {
      const at = ++n;
      const id = ++n;
      conditions.push(`(created_at < $${at} OR (created_at = $${at} AND id < $${id}))`);
    }
    return {
      name: `workflows_of_owner${visibility ? '_visibility' : ''}${cursor ? '_after' : ''}`,
      text: `SELECT ${WORKFLOW_COLUMNS} FROM workflows WHERE ${conditions.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${n + 1}`,
    };
  }),
);
