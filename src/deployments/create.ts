import type { Deployment } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { newId } from '../clock.js';
import { notFound } from '../errors.js';
import { recordCreated } from '../idempotency/within-create.js';
import { enforceQuota, enforceTeamQuota } from '../limits/quota.js';
import { adapterSet } from '../manifest/adapters.js';
import { ADAPTERS } from '../manifest/types.js';
import { recordAudit } from '../teams/audit.js';
import { assertManager } from '../teams/roles.js';
import { checkWorkflowIds } from './access.js';
import type { DeploymentContext } from './context.js';
import { checkDescription, checkName, checkTeamId } from './input.js';
import type { CreateDeploymentInput } from './types.js';

/**
 * The team a deployment is made in or moved into, for an owner or admin of it (a member:
 * FORBIDDEN, team_role; an outsider or an unknown team: NOT_FOUND), with its billing owner.
 */
export async function managedTeam(ctx: DeploymentContext, viewer: Viewer, teamId: string, what: string) {
  const member = await ctx.db.prisma.teamMember.findUnique({
    where: { teamId_userId: { teamId, userId: viewer.userId } },
    select: { role: true, team: { select: { billingOwnerId: true } } },
  });
  if (!member) throw notFound('team', teamId);
  assertManager(member.role, what);
  return { teamId, billingOwnerId: member.team.billingOwnerId };
}

export async function createDeployment(ctx: DeploymentContext, viewer: Viewer, input: CreateDeploymentInput): Promise<Deployment> {
  const name = checkName(input.name);
  const description = checkDescription(input.description) ?? null;
  const enabledAdapters =
    input.enabledAdapters === undefined || input.enabledAdapters === null ? [...ADAPTERS] : adapterSet(input.enabledAdapters);
  const teamId = checkTeamId(input.teamId) ?? null;
  const team = teamId === null ? null : await managedTeam(ctx, viewer, teamId, 'create deployments in the team');
  const workflowIds = await checkWorkflowIds(ctx, viewer, input.workflowIds, teamId);
  const now = ctx.clock.now();
  const row = await ctx.db.prisma.$transaction(async (tx) => {
    if (team) await enforceTeamQuota(tx, team.teamId, 'deployments');
    else await enforceQuota(tx, viewer.userId, 'deployments');
    const id = newId('dep');
    await recordCreated(tx, `/deployments/${id}`);
    const created = await tx.deployment.create({
      data: {
        id,
        ownerId: viewer.userId,
        teamId,
        name,
        description,
        enabledAdapters,
        status: 'active',
        allowAnonymous: input.allowAnonymous ?? false,
        createdAt: now,
        updatedAt: now,
        workflows: { create: workflowIds.map((workflowId, position) => ({ workflowId, position })) },
      },
    });
    if (teamId) {
      const details = { name, workflowIds };
      await recordAudit(tx, now, {
        teamId,
        action: 'deployment.created',
        actorUserId: viewer.userId,
        targetType: 'deployment',
        targetId: id,
        details,
      });
    }
    return created;
  });
  return row;
}
