import type { LibrarySourceType, ModerationState, Visibility } from '@prisma/client';
import type { Database } from '../db/index.js';
import type { ReadRows } from '../db/statement.js';
import { BoundedCache } from '../cache/bounded.js';
import { ADAPTERS, type Adapter, type WorkflowManifest } from '../manifest/types.js';
import { unavailableReason } from '../workflows/service.js';
import { versionDigest } from '../workflows/digest.js';
import { provenanceOf } from '../workflows/provenance.js';
import { BUNDLES_OF_DEPLOYMENTS, MANIFESTS_AT_VERSIONS } from './sql.js';
import type { DeploymentWorkflowRow, EndpointWorkflow } from './types.js';

/**
 * Which of a deployment's bundled workflows its owner may still use, at which version, and
 * (for the tool endpoint) with which manifest. The rules live here once, for the REST/GraphQL
 * views and for the endpoint alike:
 * - an owned workflow is used at its current version;
 * - a subscribed one at the version of the owner's library entry, while it is in the library;
 *   while its author keeps it private it stays in the bundle marked unavailable and is offered
 *   nowhere (deleting it removes it);
 * - the library entry's `isActive` and `enabledAdapters` decide whether the endpoint offers it.
 *
 * The bundles are read with named statements (sql.ts; one statement for any number of deployments),
 * not through Prisma's nested reads, which take three statements and Prisma's query planning each time.
 */

/** One row of BUNDLES_OF_DEPLOYMENTS: the workflow's summary and the deployment owner's library entry, if any. */
export interface BundleRow {
  deploymentId: string;
  workflowId: string;
  workflowOwnerId: string;
  /** The team the workflow belongs to; null for a personal workflow. */
  workflowTeamId: string | null;
  /** The name and description of the version in use (see sql.ts). */
  workflowName: string;
  workflowDescription: string;
  /** The category and tags of the version in use: with the above, what its digest covers. */
  versionCategory: string;
  versionTags: string[];
  /** The content digest of the version in use; null only for a version row written without one. */
  versionDigest: string | null;
  /** The author's display name as they set it (provenance.ts decides what of it is shown). */
  authorDisplayName: string | null;
  visibility: string;
  currentVersion: string;
  /** When the workflow last changed: names the text of its current version (see ManifestCache). */
  workflowUpdatedAt: Date;
  subscribersCount: number;
  forksCount: number;
  ratingSum: number;
  ratingCount: number;
  /** The library entry of the deployment's owner; all four null without one. */
  sourceType: string | null;
  isActive: boolean | null;
  entryAdapters: string[] | null;
  entryVersion: string | null;
  /** The operators' decision (src/moderation/service.ts): a suspended workflow is unavailable to everyone. */
  moderationState: string;
  moderationReason: string | null;
}

/** Whose a deployment is: its owner (the creator, for a team's) and its team, if any. */
export interface DeploymentHolder {
  ownerId: string;
  teamId: string | null;
}

/** One row of BUNDLES_OF_DEPLOYMENTS: a bundled workflow with its deployment's holder. */
type HeldBundleRow = BundleRow & DeploymentHolder;

/** One row of ENDPOINT_TARGET: a deployment with one bundled workflow, or with nulls when it bundles none. */
export interface EndpointRow extends Omit<BundleRow, 'deploymentId' | 'workflowId'> {
  deploymentId: string;
  workflowId: string | null;
  ownerId: string;
  teamId: string | null;
  name: string;
  description: string | null;
  enabledAdapters: string[];
  status: string;
  allowAnonymous: boolean;
}

/** Who may use a bundled workflow, at which version and where: derived from its row alone. */
export interface BundleState {
  /** Whether the deployment's owner owns the workflow. */
  isOwned: boolean;
  /** The version in use: the current one for an owned workflow, the library entry's otherwise. */
  version: string;
  /** False while the author keeps a subscribed workflow private: kept in the bundle, offered nowhere. */
  available: boolean;
  /** Why it is unavailable; null while available. */
  unavailableReason: string | null;
  /** Whether the owner's library lets the endpoint offer it at all. */
  isActive: boolean;
  /** The adapters the owner's library entry enables it for. */
  adapters: Adapter[];
}

/**
 * The state of a bundled workflow (the rules above), or null when it is no longer in the bundle:
 * a subscription the deployment's owner ended. The GraphQL fields and the tool endpoint both ask here.
 */
export function bundleStateOf(w: DeploymentWorkflowRow): BundleState | null {
  const deployment = w.deployments[0]?.deployment;
  const teamId = deployment?.teamId ?? null;
  const entry = w.libraryEntries[0];
  // A team's workflow is the team's own in the team's deployments, whoever of the team wrote it.
  const isTeams = teamId !== null && w.teamId === teamId;
  const isOwned = w.ownerId === deployment?.ownerId || isTeams;
  const subscribed = entry?.sourceType === 'subscribed';
  // A team's deployment may bundle any public workflow: without its owner's subscription, at the current version.
  const publicInTeam = teamId !== null && !subscribed && w.visibility === 'public';
  if (!isOwned && !subscribed && !publicInTeam) return null;
  // In its team's deployment a team's workflow is read as the team's members read it.
  const reason = isTeams ? unavailableReason(w.ownerId, w, new Map([[teamId, 'member']])) : unavailableReason(deployment?.ownerId ?? '', w);
  return {
    isOwned,
    version: isOwned || !subscribed ? w.currentVersion : entry.workflowVersion,
    available: reason === null,
    unavailableReason: reason,
    // An owned workflow without a library entry (seeded or legacy rows) is offered everywhere.
    isActive: entry ? entry.isActive : true,
    adapters: entry ? ADAPTERS.filter((a) => entry.enabledAdapters.includes(a)) : [...ADAPTERS],
  };
}

export interface BundledWorkflow extends DeploymentWorkflowRow, BundleState {
  /**
   * Names the manifest text in use: the version, and for the current version also when the
   * workflow last changed, since a PUT may rewrite the current version's key order without
   * changing its content (and so without a new version).
   */
  manifestKey: string;
  /** What the version in use adds to the row for provenance (see BundleRow). */
  versionCategory: string;
  versionTags: string[];
  versionDigest: string | null;
  authorDisplayName: string | null;
}

/** A row of the bundle statements in Prisma's shape, as the deployment `ownerId` sees it. */
function toDeploymentWorkflowRow(w: Omit<BundleRow, 'deploymentId'>, holder: DeploymentHolder): DeploymentWorkflowRow {
  return {
    id: w.workflowId,
    ownerId: w.workflowOwnerId,
    teamId: w.workflowTeamId,
    name: w.workflowName,
    description: w.workflowDescription,
    visibility: w.visibility as Visibility,
    currentVersion: w.currentVersion,
    updatedAt: new Date(w.workflowUpdatedAt),
    subscribersCount: w.subscribersCount,
    forksCount: w.forksCount,
    ratingSum: w.ratingSum,
    ratingCount: w.ratingCount,
    moderationState: w.moderationState as ModerationState,
    moderationReason: w.moderationReason,
    deployments: [{ deployment: { ownerId: holder.ownerId, teamId: holder.teamId } }],
    libraryEntries:
      w.sourceType === null
        ? []
        : [
            {
              sourceType: w.sourceType as LibrarySourceType,
              isActive: w.isActive!,
              enabledAdapters: w.entryAdapters!,
              workflowVersion: w.entryVersion!,
            },
          ],
  };
}

/** The workflows of one deployment's rows its holder may use, in deployment order. */
export function resolveBundle(rows: readonly Omit<BundleRow, 'deploymentId'>[], holder: DeploymentHolder): BundledWorkflow[] {
  const out: BundledWorkflow[] = [];
  for (const r of rows) {
    const row = toDeploymentWorkflowRow(r, holder);
    const state = bundleStateOf(row);
    if (!state) continue;
    const manifestKey = state.version === row.currentVersion ? `${state.version}@${row.updatedAt.getTime()}` : state.version;
    const { versionCategory, versionTags, versionDigest, authorDisplayName } = r;
    out.push({ ...row, ...state, manifestKey, versionCategory, versionTags, versionDigest, authorDisplayName });
  }
  return out;
}

/** The usable bundle of each deployment (as its holder uses it), in one statement. */
export async function loadBundles(db: Database, deploymentIds: readonly string[]): Promise<Map<string, BundledWorkflow[]>> {
  if (deploymentIds.length === 0) return new Map();
  const rowsOf = new Map<string, HeldBundleRow[]>(deploymentIds.map((id) => [id, []]));
  for (const row of await db.read<HeldBundleRow>(BUNDLES_OF_DEPLOYMENTS, [deploymentIds])) rowsOf.get(row.deploymentId)?.push(row);
  return new Map([...rowsOf].map(([id, rows]) => [id, rows.length ? resolveBundle(rows, rows[0]!) : []]));
}

/**
 * Parsed manifests by workflow id and manifest key (`BundledWorkflow.manifestKey`), kept by one
 * instance for the tool endpoint (the cache `manifests`). A recorded version's text never changes;
 * the current version's may (the same content rewritten in another key order), which is why its
 * key also names when the workflow last changed. So an entry is never stale and needs no
 * invalidation across instances; a deleted workflow's entries are simply no longer asked for.
 * Bounded: beyond `maxEntries` the least recently used entry goes. Entries are frozen, since every
 * request that finds one shares it.
 */
export class ManifestCache {
  private readonly entries: BoundedCache<string, WorkflowManifest>;

  constructor(maxEntries = 2000) {
    this.entries = new BoundedCache('manifests', maxEntries);
  }

  get(workflowId: string, key: string): WorkflowManifest | undefined {
    return this.entries.get(`${workflowId}@${key}`);
  }

  set(workflowId: string, key: string, manifest: WorkflowManifest): void {
    this.entries.set(`${workflowId}@${key}`, deepFreeze(manifest));
  }

  get size(): number {
    return this.entries.size;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/**
 * The workflows a connection on `adapter` is offered, in deployment order, with their manifests
 * at the versions in use: from `cache`, and the missing ones with one statement. A workflow whose
 * version is gone is left out.
 */
export async function renderable(
  bundle: readonly BundledWorkflow[],
  adapter: Adapter,
  cache: ManifestCache,
  read: ReadRows,
): Promise<EndpointWorkflow[]> {
  const offered = bundle.filter((w) => w.available && w.isActive && w.adapters.includes(adapter));
  // Looked up once each, and used from here: the cache may drop an entry before it is used.
  const manifests = offered.map((w) => cache.get(w.id, w.manifestKey));
  const missing = offered.filter((_w, i) => manifests[i] === undefined);
  if (missing.length > 0) {
    const rows = await read<{ workflowId: string; version: string; manifestText: string | null }>(MANIFESTS_AT_VERSIONS, [
      missing.map((w) => w.id),
      missing.map((w) => w.version),
    ]);
    const textOf = new Map(rows.map((row) => [`${row.workflowId}@${row.version}`, row.manifestText]));
    offered.forEach((w, i) => {
      if (manifests[i] !== undefined) return;
      const text = textOf.get(`${w.id}@${w.version}`);
      if (typeof text !== 'string') return;
      const manifest = JSON.parse(text) as WorkflowManifest;
      manifests[i] = manifest;
      cache.set(w.id, w.manifestKey, manifest);
    });
  }
  const out: EndpointWorkflow[] = [];
  for (let i = 0; i < offered.length; i += 1) {
    const w = offered[i]!;
    const manifest = manifests[i];
    if (!manifest) continue;
    // Manifests are validated when they are stored; the renderer trusts them.
    const content = { name: w.name, description: w.description, category: w.versionCategory, tags: w.versionTags, manifest };
    // A version row written by something other than the service (a seed script) gets its digest here.
    const digest = w.versionDigest ?? versionDigest(w.id, w.ownerId, w.version, content);
    out.push({
      workflowId: w.id,
      name: w.name,
      description: w.description,
      version: w.version,
      manifest,
      provenance: provenanceOf({ id: w.ownerId, displayName: w.authorDisplayName }, digest, !w.isOwned),
    });
  }
  return out;
}
