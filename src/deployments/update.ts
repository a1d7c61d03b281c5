import type { Deployment, Prisma } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { notFound } from '../errors.js';
import { adapterSet } from '../manifest/adapters.js';
import { ADAPTERS, type Adapter } from '../manifest/types.js';
import { checkRevision } from '../revisions.js';
import { recordAudit } from '../teams/audit.js';
import { checkWorkflowIds, findChangeable, sameHolder, type DeploymentAccess } from './access.js';
import type { DeploymentContext } from './context.js';
import { checkDescription, checkName, notNull } from './input.js';
import { managedTeam } from './create.js';
import { moveDeployment, wantsMove, type Move } from './move.js';
import type { DeploymentStatus, UpdateDeploymentInput } from './types.js';

/**
 * Changes of a deployment by whoever may change it (access.ts: its owner, or a team's owners and
 * admins): its fields, adapters and status, its team (move.ts), and its deletion. A change of a
 * team's deployment writes its entry in the team's log in the same transaction.
 */

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
  const access = await findChangeable(ctx, viewer, input.deploymentId);
  const current = access.row;
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
  const move = wantsMove(current, input.teamId);
  const teamOfBundle = move ? move.to : current.teamId;
  const workflowIds =
    input.workflowIds === undefined
      ? await bundleAfterMove(ctx, viewer, current, move)
      : await checkWorkflowIds(ctx, viewer, input.workflowIds, teamOfBundle ?? null);
  if (workflowIds) {
    data.workflows = { deleteMany: {}, create: workflowIds.map((workflowId, position) => ({ workflowId, position })) };
  }
  if (move) return moveDeployment(ctx, viewer, access, move, { data, expected: precondition.expectedRevision });
  if (Object.keys(data).length === 0) return current;
  data.updatedAt = ctx.clock.now();
  return mutate(ctx, viewer, current, data, precondition.expectedRevision);
}

/**
 * A move keeps the bundle only when the destination may bundle it: a deployment moved into a team
 * offers its members only what a team's deployment may name (docs/teams.md, "Team deployments"),
 * so a private personal workflow of the mover's is refused rather than shared. Moved out, the
 * team's workflows stay named, unavailable to the new owner (bundle.ts).
 */
async function bundleAfterMove(ctx: DeploymentContext, viewer: Viewer, current: Deployment, move: Move | null): Promise<undefined> {
  if (!move || move.to === null) return undefined;
  await managedTeam(ctx, viewer, move.to, 'move deployments into the team');
  const rows = await ctx.db.prisma.deploymentWorkflow.findMany({ where: { deploymentId: current.id }, orderBy: { position: 'asc' } });
  if (rows.length > 0)
    await checkWorkflowIds(
      ctx,
      viewer,
      rows.map((r) => r.workflowId),
      move.to,
    );
  return undefined;
}

/**
 * Applies an update to a deployment as it was found (still its owner's, or still its team's) and
 * answers the row as this write left it (the update's own RETURNING, not a read after it). Every
 * write counts a revision; with `expected`, the write is made only at that revision, in the same
 * statement. A concurrent delete (or move) makes it NOT_FOUND, a concurrent write PRECONDITION_FAILED.
 */
async function mutate(
  ctx: DeploymentContext,
  viewer: Viewer,
  current: Deployment,
  data: Prisma.DeploymentUpdateInput,
  expected?: number | null,
): Promise<Deployment> {
  const prisma = ctx.db.prisma;
  const where = { ...sameHolder(current), ...(typeof expected === 'number' ? { revision: expected } : {}) };
  const write = (tx: Prisma.TransactionClient) => tx.deployment.update({ where, data: { ...data, revision: { increment: 1 } } });
  try {
    if (current.teamId === null) return await write(prisma);
    const teamId = current.teamId;
    return await prisma.$transaction(async (tx) => {
      const row = await write(tx);
      const fields = Object.keys(data).filter((k) => k !== 'updatedAt');
      await recordAudit(tx, ctx.clock.now(), {
        teamId,
        action: 'deployment.updated',
        actorUserId: viewer.userId,
        targetType: 'deployment',
        targetId: row.id,
        details: { fields },
      });
      return row;
    });
  } catch (error) {
    if ((error as { code?: string }).code !== 'P2025') throw error;
    const now = await prisma.deployment.findFirst({ where: sameHolder(current), select: { revision: true } });
    if (now && typeof expected === 'number') checkRevision('deployment', current.id, now.revision, expected);
    throw notFound('deployment', current.id);
  }
}

export async function setAdapter(
  ctx: DeploymentContext,
  viewer: Viewer,
  input: { deploymentId: string; adapter: string; enabled: boolean },
): Promise<{ deploymentId: string; enabledAdapters: Adapter[] }> {
  const [adapter] = adapterSet([input.adapter], 'adapter');
  const { row: current } = await findChangeable(ctx, viewer, input.deploymentId);
  const enabled = new Set(adapterSet(current.enabledAdapters));
  if (input.enabled) enabled.add(adapter!);
  else enabled.delete(adapter!);
  const enabledAdapters = ADAPTERS.filter((a) => enabled.has(a));
  if (enabledAdapters.length !== current.enabledAdapters.length) {
    await mutate(ctx, viewer, current, { enabledAdapters, updatedAt: ctx.clock.now() });
  }
  return { deploymentId: current.id, enabledAdapters };
}

/** Spec 3: active <-> inactive. Asking for the state a deployment is already in changes nothing. */
async function setStatus(ctx: DeploymentContext, viewer: Viewer, deploymentId: string, status: DeploymentStatus): Promise<Deployment> {
  const { row: current } = await findChangeable(ctx, viewer, deploymentId);
  if (current.status === status) return current;
  return mutate(ctx, viewer, current, { status, updatedAt: ctx.clock.now() });
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
  const { row }: DeploymentAccess = await findChangeable(ctx, viewer, deploymentId);
  const count = await ctx.db.prisma.$transaction(async (tx) => {
    const { count } = await tx.deployment.deleteMany({ where: sameHolder(row) as Prisma.DeploymentWhereInput });
    if (count > 0 && row.teamId !== null) {
      await recordAudit(tx, ctx.clock.now(), {
        teamId: row.teamId,
        action: 'deployment.deleted',
        actorUserId: viewer.userId,
        targetType: 'deployment',
        targetId: row.id,
        details: { name: row.name },
      });
    }
    return count;
  });
  if (count === 0) throw notFound('deployment', deploymentId);
  return { deploymentId, deleted: true };
}
