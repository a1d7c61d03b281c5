import { Prisma } from '@prisma/client';
import { ownerPageStatements } from '../db/keyset.js';
import type { Statement } from '../db/statement.js';

/**
 * The SQL of deployments: the named statements of the deployment lists, the bundles, the tool
 * endpoint and its usage, and the raw statements that count a connection.
 */

/** The deployments columns under Prisma's field names, so rows have the shape of Prisma's `Deployment`. */
const DEPLOYMENT_COLUMNS = `id, owner_id AS "ownerId", name, description, enabled_adapters AS "enabledAdapters",
  status::text AS status, allow_anonymous AS "allowAnonymous", last_connected_at AS "lastConnectedAt",
  created_at AS "createdAt", updated_at AS "updatedAt", revision, team_id AS "teamId"`;

/**
 * A page of an owner's personal deployments (a team's are the team's), newest first: owner $1,
 * then the optional status and the cursor position (created_at, id), and the row count last.
 */
export const deploymentsOfOwner = ownerPageStatements({
  name: 'deployments_of_owner',
  table: 'deployments',
  columns: DEPLOYMENT_COLUMNS,
  orderColumn: 'created_at',
  filter: { column: 'status', type: '"DeploymentStatus"', suffix: '_status' },
  alwaysWhere: 'team_id IS NULL',
});

/** The same page of a team's deployments: team $1, then as deploymentsOfOwner. */
export const deploymentsOfTeam = ownerPageStatements({
  name: 'deployments_of_team',
  table: 'deployments',
  columns: DEPLOYMENT_COLUMNS,
  orderColumn: 'created_at',
  filter: { column: 'status', type: '"DeploymentStatus"', suffix: '_status' },
  ownerColumn: 'team_id',
});

/**
 * The columns of a bundled workflow (bundle.ts's BundleRow without the deployment), over `w`
 * (workflows), `e` (the deployment owner's library entry, all null without one), `v` (the version
 * in use, VERSION_IN_USE) and `u` (the workflow's author). Name and description are the version's:
 * a subscriber pinned to a version sees that version's, not the workflow's latest.
 */
const BUNDLED_WORKFLOW_COLUMNS = `w.id AS "workflowId", w.owner_id AS "workflowOwnerId", w.team_id AS "workflowTeamId",
  coalesce(v.name, w.name) AS "workflowName", coalesce(v.description, w.description) AS "workflowDescription",
  coalesce(v.category, w.category) AS "versionCategory", coalesce(v.tags, w.tags) AS "versionTags",
  v.digest AS "versionDigest", u.display_name AS "authorDisplayName", w.visibility::text AS visibility,
  w.current_version AS "currentVersion", w.updated_at AS "workflowUpdatedAt", w.subscribers_count AS "subscribersCount", w.forks_count AS "forksCount",
  w.rating_sum AS "ratingSum", w.rating_count AS "ratingCount", e.source_type::text AS "sourceType",
  e.is_active AS "isActive", e.enabled_adapters AS "entryAdapters", e.workflow_version AS "entryVersion",
  w.moderation_state::text AS "moderationState", w.moderation_reason AS "moderationReason"`;

/**
 * The joins of the version in use in deployment `d` (bundle.ts's rule: the current version of a
 * workflow the deployment's owner owns, of its team's workflows and, in a team's deployment, of a
 * public workflow its owner has no library entry of; else the library entry's version) and of the author.
 */
const VERSION_IN_USE = `CASE WHEN w.owner_id = d.owner_id OR w.team_id = d.team_id
        OR (d.team_id IS NOT NULL AND e.workflow_version IS NULL) THEN w.current_version ELSE e.workflow_version END`;
const versionInUse = `LEFT JOIN workflow_versions v ON v.workflow_id = w.id AND v.version = ${VERSION_IN_USE}
    LEFT JOIN users u ON u.id = w.owner_id`;

/**
 * The bundles of the deployments $1 (text[]), each in deployment order, with each deployment's
 * owner and team: the same rows as ENDPOINT_TARGET's joins, with the deployment, the library
 * entry, the version in use and the author each read by a LATERAL subquery kept apart from the
 * join (`OFFSET 0`). PostgreSQL plans this statement afresh on every call (its generic plan, made
 * for an array of unknown length, costs more than a plan for the ids at hand), and a join of two
 * tables is planned in a fraction of the time of a join of six (docs/decisions.md, "Performance").
 */
export const BUNDLES_OF_DEPLOYMENTS: Statement = {
  name: 'deployment_bundles',
  text: `SELECT dw.deployment_id AS "deploymentId", d.owner_id AS "ownerId", d.team_id AS "teamId", ${BUNDLED_WORKFLOW_COLUMNS}
    FROM deployment_workflows dw
    JOIN workflows w ON w.id = dw.workflow_id
    CROSS JOIN LATERAL (SELECT owner_id, team_id FROM deployments WHERE id = dw.deployment_id OFFSET 0) d
    LEFT JOIN LATERAL (SELECT source_type, is_active, enabled_adapters, workflow_version FROM library_entries
      WHERE user_id = d.owner_id AND workflow_id = w.id OFFSET 0) e ON true
    LEFT JOIN LATERAL (SELECT name, description, category, tags, digest FROM workflow_versions
      WHERE workflow_id = w.id AND version = ${VERSION_IN_USE} OFFSET 0) v ON true
    LEFT JOIN LATERAL (SELECT display_name FROM users WHERE id = w.owner_id OFFSET 0) u ON true
    WHERE dw.deployment_id = ANY($1::text[])
    ORDER BY dw.deployment_id, dw.position`,
};

/**
 * What the tool endpoint needs for one request, in one statement: the deployment $1 with its
 * bundle and the owner's library entries (one row per bundled workflow, or one row of nulls
 * without any). The manifests are read apart (MANIFESTS_AT_VERSIONS), only for the workflows a
 * connection is offered and only when the instance does not have them yet.
 */
export const ENDPOINT_TARGET: Statement = {
  name: 'deployment_endpoint_target',
  text: `SELECT d.id AS "deploymentId", d.owner_id AS "ownerId", d.name, d.description,
      d.enabled_adapters AS "enabledAdapters", d.status::text AS status, d.allow_anonymous AS "allowAnonymous",
      d.team_id AS "teamId", ${BUNDLED_WORKFLOW_COLUMNS}
    FROM deployments d
    LEFT JOIN deployment_workflows dw ON dw.deployment_id = d.id
    LEFT JOIN workflows w ON w.id = dw.workflow_id
    LEFT JOIN library_entries e ON e.user_id = d.owner_id AND e.workflow_id = w.id
    ${versionInUse}
    WHERE d.id = $1
    ORDER BY dw.position`,
};

/**
 * The manifests of workflows $1 (text[]) at versions $2 (text[], pairwise), as written (JSON text):
 * the workflow's own manifest at its current version, the recorded one otherwise; no row for an
 * unknown workflow, a null manifest for a version that is gone.
 */
export const MANIFESTS_AT_VERSIONS: Statement = {
  name: 'manifests_at_versions',
  text: `SELECT w.id AS "workflowId", p.version,
      CASE WHEN p.version = w.current_version THEN coalesce(w.manifest_text, w.manifest::text)
        ELSE (SELECT coalesce(v.manifest_text, v.manifest::text) FROM workflow_versions v WHERE v.workflow_id = w.id AND v.version = p.version)
      END AS "manifestText"
    FROM unnest($1::text[], $2::text[]) AS p(workflow_id, version)
    JOIN workflows w ON w.id = p.workflow_id`,
};

/** Whether the connection ($1 deployment, $2 adapter, $3 caller, $4 day) is already counted. */
export const CONNECTION_KNOWN: Statement = {
  name: 'mcp_connection_known',
  text: `SELECT 1 AS one FROM mcp_connections WHERE deployment_id = $1 AND adapter = $2 AND caller = $3 AND day = $4::date`,
};

/** Connections of the deployments $1 (text[]) since the day $2, summed per deployment. */
export const USAGE_SINCE: Statement = {
  name: 'deployment_usage_since',
  text: `SELECT deployment_id AS "deploymentId", sum(count)::text AS total FROM deployment_usage
    WHERE deployment_id = ANY($1::text[]) AND day >= $2::date GROUP BY deployment_id`,
};

/** The key of one connection (deployment, adapter, caller, UTC day `YYYY-MM-DD`). */
export interface ConnectionKey {
  deploymentId: string;
  adapter: string;
  caller: string;
  day: string;
}

/** Records a connection's key with the client that made it; a key already there inserts nothing (0 rows). */
export const insertConnectionKey = (k: ConnectionKey, clientName: string | null) => Prisma.sql`
  INSERT INTO mcp_connections (deployment_id, adapter, caller, day, client_name)
  VALUES (${k.deploymentId}, ${k.adapter}, ${k.caller}, ${k.day}::date, ${clientName})
  ON CONFLICT DO NOTHING`;

/** Moves a deployment's last connection forward to `at` (never back); 0 rows when the deployment is gone. */
export const touchLastConnected = (deploymentId: string, at: Date) => Prisma.sql`
  UPDATE deployments SET last_connected_at = GREATEST(COALESCE(last_connected_at, ${at}), ${at})
  WHERE id = ${deploymentId}`;

/** Adds one connection to the deployment's count for the adapter and day. */
export const countDailyUsage = (k: Omit<ConnectionKey, 'caller'>) => Prisma.sql`
  INSERT INTO deployment_usage (deployment_id, adapter, day, count) VALUES (${k.deploymentId}, ${k.adapter}, ${k.day}::date, 1)
  ON CONFLICT (deployment_id, adapter, day) DO UPDATE SET count = deployment_usage.count + 1`;
