import type { Database, Statement } from '../db/index.js';
import { ADAPTERS, type Adapter, type WorkflowManifest } from '../manifest/types.js';
import type { RenderableWorkflow } from '../mcp/render/index.js';
import type { DeploymentWorkflowDto } from './types.js';

/**
 * Which of a deployment's bundled workflows its owner may still use, at which version, and
 * (for the tool endpoint) with which manifest. The rules live here once, for the REST/GraphQL
 * views and for the endpoint alike:
 * - an owned workflow is used at its current version;
 * - a subscribed one at the version of the owner's library entry, and only while it is public
 *   and in the library (an author making it private or deleting it takes it away);
 * - the library entry's `isActive` and `enabledAdapters` decide whether the endpoint offers it.
 *
 * The bundles are read with SQL of their own (one statement for any number of deployments), not
 * through Prisma's nested reads, which take three statements and Prisma's query planning each time.
 */

/** One bundled workflow as read: the workflow's summary and the deployment owner's library entry, if any. */
export interface BundleRow {
  deploymentId: string;
  workflowId: string;
  workflowOwnerId: string;
  workflowName: string;
  workflowDescription: string;
  visibility: string;
  currentVersion: string;
  subscribersCount: number;
  forksCount: number;
  ratingSum: number;
  ratingCount: number;
  /** The library entry of the deployment's owner; all four null without one. */
  sourceType: string | null;
  isActive: boolean | null;
  entryAdapters: string[] | null;
  entryVersion: string | null;
}

/** The columns of BundleRow, over `dw` (deployment_workflows), `w` (workflows) and `e` (library_entries). */
const BUNDLE_COLUMNS = `dw.deployment_id AS "deploymentId", w.id AS "workflowId", w.owner_id AS "workflowOwnerId",
  w.name AS "workflowName", w.description AS "workflowDescription", w.visibility::text AS visibility,
  w.current_version AS "currentVersion", w.subscribers_count AS "subscribersCount", w.forks_count AS "forksCount",
  w.rating_sum AS "ratingSum", w.rating_count AS "ratingCount", e.source_type::text AS "sourceType",
  e.is_active AS "isActive", e.enabled_adapters AS "entryAdapters", e.workflow_version AS "entryVersion"`;

/** The bundles of the deployments $1 (text[]) of the owner $2, each in deployment order. */
export const BUNDLES_OF_DEPLOYMENTS: Statement = {
  name: 'deployment_bundles',
  text: `SELECT ${BUNDLE_COLUMNS}
    FROM deployment_workflows dw
    JOIN workflows w ON w.id = dw.workflow_id
    LEFT JOIN library_entries e ON e.user_id = $2 AND e.workflow_id = w.id
    WHERE dw.deployment_id = ANY($1::text[])
    ORDER BY dw.deployment_id, dw.position`,
};

/** A deployment with its bundle (one row per bundled workflow, or one row of nulls without any). */
export interface EndpointRow extends Omit<BundleRow, 'deploymentId' | 'workflowId'> {
  deploymentId: string;
  workflowId: string | null;
  ownerId: string;
  name: string;
  description: string | null;
  enabledAdapters: string[];
  status: string;
  allowAnonymous: boolean;
  /** The manifest at the version the deployment uses; null when that version is gone. */
  manifest: unknown;
}

/**
 * Everything the tool endpoint needs for one request, in one statement: the deployment $1, its
 * bundle with the owner's library entries, and each workflow's manifest at the version in use
 * (the current one for owned workflows and up-to-date subscriptions, else the recorded version).
 */
export const ENDPOINT_TARGET: Statement = {
  name: 'deployment_endpoint_target',
  text: `SELECT d.id AS "deploymentId", d.owner_id AS "ownerId", d.name, d.description,
      d.enabled_adapters AS "enabledAdapters", d.status::text AS status, d.allow_anonymous AS "allowAnonymous",
      ${BUNDLE_COLUMNS.replace('dw.deployment_id AS "deploymentId", ', '')},
      CASE WHEN w.owner_id = d.owner_id OR e.workflow_version = w.current_version THEN w.manifest
        ELSE (SELECT v.manifest FROM workflow_versions v WHERE v.workflow_id = w.id AND v.version = e.workflow_version)
      END AS manifest
    FROM deployments d
    LEFT JOIN deployment_workflows dw ON dw.deployment_id = d.id
    LEFT JOIN workflows w ON w.id = dw.workflow_id
    LEFT JOIN library_entries e ON e.user_id = d.owner_id AND e.workflow_id = w.id
    WHERE d.id = $1
    ORDER BY dw.position`,
};

export interface BundledWorkflow extends DeploymentWorkflowDto {
  description: string;
  /** Whether the owner's library lets the endpoint offer it at all. */
  isActive: boolean;
  /** The adapters the owner's library entry enables it for. */
  adapters: Adapter[];
}

/** The workflows of one deployment's rows its owner may use, in deployment order. */
export function resolveBundle(rows: readonly Omit<BundleRow, 'deploymentId'>[], ownerId: string): BundledWorkflow[] {
  const out: BundledWorkflow[] = [];
  for (const w of rows) {
    const isOwned = w.workflowOwnerId === ownerId;
    const hasEntry = w.sourceType !== null;
    if (!isOwned && (w.sourceType !== 'subscribed' || w.visibility !== 'public')) continue;
    out.push({
      workflowId: w.workflowId,
      name: w.workflowName,
      description: w.workflowDescription,
      version: isOwned ? w.currentVersion : w.entryVersion!,
      isOwned,
      stats: {
        subscribersCount: w.subscribersCount,
        forksCount: w.forksCount,
        ratingCount: w.ratingCount,
        averageRating: w.ratingCount > 0 ? Math.round((w.ratingSum / w.ratingCount) * 100) / 100 : null,
      },
      // An owned workflow without a library entry (seeded or legacy rows) is offered everywhere.
      isActive: hasEntry ? w.isActive! : true,
      adapters: hasEntry ? ADAPTERS.filter((a) => w.entryAdapters!.includes(a)) : [...ADAPTERS],
    });
  }
  return out;
}

/** The usable bundle of each of the owner's deployments, in one statement. */
export async function loadBundles(db: Database, deploymentIds: readonly string[], ownerId: string): Promise<Map<string, BundledWorkflow[]>> {
  if (deploymentIds.length === 0) return new Map();
  const rowsOf = new Map<string, BundleRow[]>(deploymentIds.map((id) => [id, []]));
  for (const row of await db.read<BundleRow>(BUNDLES_OF_DEPLOYMENTS, [deploymentIds, ownerId])) rowsOf.get(row.deploymentId)?.push(row);
  return new Map([...rowsOf].map(([id, rows]) => [id, resolveBundle(rows, ownerId)]));
}

export function toWorkflowDto(w: BundledWorkflow): DeploymentWorkflowDto {
  return { workflowId: w.workflowId, name: w.name, version: w.version, isOwned: w.isOwned, stats: w.stats };
}

/**
 * The renderable workflows of a bundle that a connection on `adapter` is offered, in deployment
 * order. A workflow whose version row has gone missing is dropped rather than served under
 * another version's number.
 */
export function renderable(bundle: readonly BundledWorkflow[], manifests: ReadonlyMap<string, unknown>, adapter: Adapter): RenderableWorkflow[] {
  const out: RenderableWorkflow[] = [];
  for (const w of bundle) {
    if (!w.isActive || !w.adapters.includes(adapter)) continue;
    const manifest = manifests.get(w.workflowId);
    if (!manifest) continue;
    // Manifests are validated when they are stored; the renderer trusts them.
    out.push({ workflowId: w.workflowId, name: w.name, description: w.description, version: w.version, manifest: manifest as WorkflowManifest });
  }
  return out;
}
