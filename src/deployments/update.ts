import type { Deployment, Prisma } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { notFound } from '../errors.js';
import { adapterSet } from '../manifest/adapters.js';
import { ADAPTERS, type Adapter } from '../manifest/types.js';
import { checkRevision } from '../revisions.js';
import { checkWorkflowIds, findOwned, ownedBy } from './access.js';
import type { DeploymentContext } from './context.js';
import { checkDescription, checkName, notNull } from './input.js';
import type { DeploymentStatus, UpdateDeploymentInput } from './types.js';

/** Changes by a deployment's owner: its fields, adapters and status, and its deletion. */

/**
 * `expectedRevision` (REST: If-Match) makes the update conditional: when the deployment has been
 * written since the client read that revision, nothing changes and the answer is 412.
 */
export async function updateDeployment(
  ctx: DeploymentContext,
  viewer: Viewer,
  input: UpdateDeploymentInput,
  precondition: { expectedRevision?: number | null } = {},
): Promise<Deployment> {
  const current = await findOwned(ctx, viewer, input.deploymentId);
  checkRevision('deployment', current.id, current.revision, precondition.expectedRevision);
  if (input.name === null) throw notNull('name');
  if (input.workflowIds === null) throw notNull('workflowIds');
  if (input.enabledAdapters === null) throw notNull('enabledAdapters');
  if (input.allowAnonymous === null) throw notNull('allowAnonymous');
  const data: Prisma.DeploymentUpdateInput = {};
  if (input.name !== undefined) data.name = checkName(input.name);
  if (input.description !== undefined) data.description = checkDescription(input.description);
  if (input.enabledAdapters !== undefined) data.enabledAdapters = adapterSet(input.enabledAdapters);
  if (input.allowAnonymous !== undefined) data.allowAnonymous = input.allowAnonymous;
  const workflowIds = input.workflowIds === undefined ? undefined : await checkWorkflowIds(ctx, viewer, input.workflowIds);
  if (Object.keys(data).length === 0 && workflowIds === undefined) return current;
  data.updatedAt = ctx.clock.now();
  if (workflowIds) {
    data.workflows = { deleteMany: {}, create: workflowIds.map((workflowId, position) => ({ workflowId, position })) };
  }
  return mutateOwned(ctx, viewer, current.id, data, precondition.expectedRevision);
}

/**
 * Applies an update to a deployment the viewer owns and answers the row as this write left it (the
 * update's own RETURNING, not a read after it). Every write counts a revision; with `expected`,
 * the write is made only at that revision, in the same statement. A concurrent delete makes it
 * NOT_FOUND, a concurrent write PRECONDITION_FAILED.
 */
async function mutateOwned(
  ctx: DeploymentContext,
  viewer: Viewer,
  deploymentId: string,
  data: Prisma.DeploymentUpdateInput,
  expected?: number | null,
): Promise<Deployment> {
  const prisma = ctx.db.prisma;
  try {
    return await prisma.deployment.update({
      where: { ...ownedBy(viewer, deploymentId), ...(typeof expected === 'number' ? { revision: expected } : {}) },
      data: { ...data, revision: { increment: 1 } },
    });
  } catch (error) {
    if ((error as { code?: string }).code !== 'P2025') throw error;
    const now = await prisma.deployment.findFirst({ where: ownedBy(viewer, deploymentId), select: { revision: true } });
    if (now && typeof expected === 'number') checkRevision('deployment', deploymentId, now.revision, expected);
    throw notFound('deployment', deploymentId);
  }
}

export async function setAdapter(
  ctx: DeploymentContext,
  viewer: Viewer,
  input: { deploymentId: string; adapter: string; enabled: boolean },
): Promise<{ deploymentId: string; enabledAdapters: Adapter[] }> {
  const [adapter] = adapterSet([input.adapter], 'adapter');
  const current = await findOwned(ctx, viewer, input.deploymentId);
  const enabled = new Set(adapterSet(current.enabledAdapters));
  if (input.enabled) enabled.add(adapter!);
  else enabled.delete(adapter!);
  const enabledAdapters = ADAPTERS.filter((a) => enabled.has(a));
  if (enabledAdapters.length !== current.enabledAdapters.length) {
    await mutateOwned(ctx, viewer, current.id, { enabledAdapters, updatedAt: ctx.clock.now() });
  }
  return { deploymentId: current.id, enabledAdapters };
}

/** Spec 3: active <-> inactive. Asking for the state a deployment is already in changes nothing. */
async function setStatus(ctx: DeploymentContext, viewer: Viewer, deploymentId: string, status: DeploymentStatus): Promise<Deployment> {
  const current = await findOwned(ctx, viewer, deploymentId);
  if (current.status === status) return current;
  return mutateOwned(ctx, viewer, current.id, { status, updatedAt: ctx.clock.now() });
}

export function activate(ctx: DeploymentContext, viewer: Viewer, deploymentId: string): Promise<Deployment> {
  return setStatus(ctx, viewer, deploymentId, 'active');
}

export function deactivate(ctx: DeploymentContext, viewer: Viewer, deploymentId: string): Promise<Deployment> {
  return setStatus(ctx, viewer, deploymentId, 'inactive');
}

export async function deleteDeployment(
  ctx: DeploymentContext,
  viewer: Viewer,
  deploymentId: string,
): Promise<{ deploymentId: string; deleted: true }> {
  const { count } = await ctx.db.prisma.deployment.deleteMany({ where: ownedBy(viewer, deploymentId) });
  if (count === 0) throw notFound('deployment', deploymentId);
  return { deploymentId, deleted: true };
}
