import type { Prisma, PrismaClient } from '@prisma/client';
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
 */

/** The part of a deployment query that loads its bundled workflows for `ownerId`. */
export function bundleQuery(ownerId: string) {
  return {
    orderBy: { position: 'asc' },
    select: {
      workflow: {
        select: {
          id: true,
          ownerId: true,
          name: true,
          description: true,
          visibility: true,
          currentVersion: true,
          subscribersCount: true,
          forksCount: true,
          ratingSum: true,
          ratingCount: true,
          libraryEntries: {
            where: { userId: ownerId },
            select: { sourceType: true, isActive: true, enabledAdapters: true, workflowVersion: true },
          },
        },
      },
    },
  } satisfies Prisma.Deployment$workflowsArgs;
}

type BundleRow = Prisma.DeploymentWorkflowGetPayload<ReturnType<typeof bundleQuery>>;

export interface BundledWorkflow extends DeploymentWorkflowDto {
  description: string;
  /** Whether the owner's library lets the endpoint offer it at all. */
  isActive: boolean;
  /** The adapters the owner's library entry enables it for. */
  adapters: Adapter[];
}

export function resolveBundle(rows: readonly BundleRow[], ownerId: string): BundledWorkflow[] {
  const out: BundledWorkflow[] = [];
  for (const { workflow: w } of rows) {
    const entry = w.libraryEntries[0];
    const isOwned = w.ownerId === ownerId;
    if (!isOwned && (!entry || entry.sourceType !== 'subscribed' || w.visibility !== 'public')) continue;
    out.push({
      workflowId: w.id,
      name: w.name,
      description: w.description,
      version: isOwned ? w.currentVersion : entry!.workflowVersion,
      isOwned,
      stats: {
        subscribersCount: w.subscribersCount,
        forksCount: w.forksCount,
        ratingCount: w.ratingCount,
        averageRating: w.ratingCount > 0 ? Math.round((w.ratingSum / w.ratingCount) * 100) / 100 : null,
      },
      // An owned workflow without a library entry (seeded or legacy rows) is offered everywhere.
      isActive: entry ? entry.isActive : true,
      adapters: entry ? ADAPTERS.filter((a) => entry.enabledAdapters.includes(a)) : [...ADAPTERS],
    });
  }
  return out;
}

export function toWorkflowDto(w: BundledWorkflow): DeploymentWorkflowDto {
  return { workflowId: w.workflowId, name: w.name, version: w.version, isOwned: w.isOwned, stats: w.stats };
}

/**
 * The manifests of the given workflows at the versions the deployment uses, in the same order.
 * Two statements whatever the number of workflows. A version row that has gone missing drops
 * that workflow rather than serving another version under its number.
 */
export async function loadRenderable(prisma: PrismaClient, bundle: readonly BundledWorkflow[]): Promise<RenderableWorkflow[]> {
  if (bundle.length === 0) return [];
  const current = await prisma.workflow.findMany({
    where: { id: { in: bundle.map((w) => w.workflowId) } },
    select: { id: true, currentVersion: true, manifest: true },
  });
  const byId = new Map(current.map((w) => [w.id, w]));
  const older = bundle.filter((w) => byId.get(w.workflowId)?.currentVersion !== w.version);
  const versions = older.length
    ? await prisma.workflowVersion.findMany({
        where: { OR: older.map((w) => ({ workflowId: w.workflowId, version: w.version })) },
        select: { workflowId: true, manifest: true },
      })
    : [];
  const olderManifest = new Map(versions.map((v) => [v.workflowId, v.manifest]));
  const out: RenderableWorkflow[] = [];
  for (const w of bundle) {
    const row = byId.get(w.workflowId);
    const manifest = row?.currentVersion === w.version ? row.manifest : olderManifest.get(w.workflowId);
    if (!manifest) continue;
    // Manifests are validated when they are stored; the renderer trusts them.
    out.push({ workflowId: w.workflowId, name: w.name, description: w.description, version: w.version, manifest: manifest as unknown as WorkflowManifest });
  }
  return out;
}
