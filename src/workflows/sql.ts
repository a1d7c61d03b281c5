import { Prisma } from '@prisma/client';
import { ownerPageStatements } from '../db/keyset.js';
import type { Statement } from '../db/statement.js';

/** The SQL of workflows: the named statements of the hottest reads and the service's raw statements. */

/**
 * The workflows columns under Prisma's field names, so a row read with SQL has exactly the shape
 * of Prisma's `Workflow` (the search document, which Prisma does not model, is left out). The
 * jsonb manifest is sent only for rows without the written text, which is what answers show.
 */
const SUMMARY_COLUMNS = `id, owner_id AS "ownerId", name, description, visibility, category, tags,
  allow_forks AS "allowForks", current_version AS "currentVersion",
  forked_from_workflow_id AS "forkedFromWorkflowId", forked_from_user_id AS "forkedFromUserId",
  forked_from_version AS "forkedFromVersion", forks_count AS "forksCount",
  subscribers_count AS "subscribersCount", rating_sum AS "ratingSum", rating_count AS "ratingCount",
  published_at AS "publishedAt", created_at AS "createdAt", updated_at AS "updatedAt", revision, digest,
  check_findings AS "checkFindings",
  moderation_state AS "moderationState", moderation_reason AS "moderationReason", moderated_at AS "moderatedAt",
  team_id AS "teamId"`;
const WORKFLOW_COLUMNS = `${SUMMARY_COLUMNS},
  CASE WHEN manifest_text IS NULL THEN manifest END AS manifest, manifest_text AS "manifestText",
  manifest_yaml AS "manifestYaml"`;

/** One workflow by id ($1). */
export const WORKFLOW_BY_ID: Statement = { name: 'workflow_by_id', text: `SELECT ${WORKFLOW_COLUMNS} FROM workflows WHERE id = $1` };

const OWNER_PAGE = {
  table: 'workflows',
  orderColumn: 'created_at',
  filter: { column: 'visibility', type: '"Visibility"', suffix: '_visibility' },
  // A person's own list: the workflows of their teams are listed by team (docs/teams.md).
  alwaysWhere: 'team_id IS NULL',
} as const;

/**
 * A page of an owner's personal workflows (not their teams'), newest first: owner $1, then the optional visibility and the
 * cursor position (created_at, id), and the row count last.
 */
export const workflowsOfOwner = ownerPageStatements({ ...OWNER_PAGE, name: 'workflows_of_owner', columns: WORKFLOW_COLUMNS });

/** The same pages without the manifest (Prisma's `omit: WITHOUT_MANIFEST`): a page of summaries. */
export const workflowSummariesOfOwner = ownerPageStatements({
  ...OWNER_PAGE,
  name: 'workflow_summaries_of_owner',
  columns: SUMMARY_COLUMNS,
});

/**
 * Locks a workflow's row for an update of it: two concurrent updates cannot both bump from the
 * same version, and a subscription (which takes the lock below) sees the visibility before or
 * after, never between.
 */
export const lockWorkflowForUpdate = (workflowId: string) => Prisma.sql`SELECT id FROM workflows WHERE id = ${workflowId} FOR UPDATE`;

/** The lock a subscription takes: it waits for an update of the workflow, and conflicts with no other subscription's. */
export const lockWorkflowForSubscription = (workflowId: string) =>
  Prisma.sql`SELECT id FROM workflows WHERE id = ${workflowId} FOR NO KEY UPDATE`;

/** The ids of each of the workflows' newest `count` versions (newest first by created_at, then id). */
export const newestVersionIds = (workflowIds: readonly string[], count: number) => Prisma.sql`
  SELECT id FROM (
    SELECT id, row_number() OVER (PARTITION BY workflow_id ORDER BY created_at DESC, id DESC) AS n
    FROM workflow_versions WHERE workflow_id IN (${Prisma.join(workflowIds)})
  ) ranked WHERE n <= ${count}`;

/**
 * The first step of filling missing digests: a version row without a digest that was written
 * without its name (by a writer other than the service: seed scripts) takes the workflow's name,
 * description, category and tags, as the migration workflow_version_content did for older rows.
 */
export const completeVersionsWithoutDigest = Prisma.sql`
  UPDATE workflow_versions v SET name = w.name, description = w.description, category = w.category, tags = w.tags
  FROM workflows w WHERE v.workflow_id = w.id AND v.digest IS NULL AND v.name = ''`;

/** Versions without a digest, `count` at a time, with what their digest covers. */
export const versionsWithoutDigest = (count: number) => Prisma.sql`
  SELECT v.id, v.workflow_id AS "workflowId", w.owner_id AS "ownerId", v.version, v.name, v.description, v.category,
    coalesce(v.tags, ARRAY[]::text[]) AS tags, coalesce(v.manifest_text, v.manifest::text) AS "manifestText"
  FROM workflow_versions v JOIN workflows w ON w.id = v.workflow_id
  WHERE v.digest IS NULL ORDER BY v.id LIMIT ${count}`;

/** Workflows without a digest take their current version's. */
export const copyCurrentDigests = Prisma.sql`
  UPDATE workflows w SET digest = v.digest FROM workflow_versions v
  WHERE w.digest IS NULL AND v.workflow_id = w.id AND v.version = w.current_version AND v.digest IS NOT NULL`;
