import type { Deployment, Prisma } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { AppError, notFound, validationError } from '../errors.js';
import { enforceQuota, enforceTeamQuota } from '../limits/quota.js';
import { checkRevision } from '../revisions.js';
import { recordAudit } from '../teams/audit.js';
import { sameHolder, type DeploymentAccess } from './access.js';
import type { DeploymentContext } from './context.js';
import { managedTeam } from './create.js';
import { checkTeamId } from './input.js';

/**
 * Moving a deployment into a team or out of it (docs/teams.md, "Team deployments"): a personal
 * deployment goes into a team its owner owns or administers; a team's comes out only by an owner
 * of the team, becoming that owner's personal deployment. The destination's deployment quota
 * counts it, and the team's log records the move in the same transaction.
 */

/** A move asked for: from the current team (null: personal) to `to` (null: out of the team). */
export interface Move {
  from: string | null;
  to: string | null;
}

/** The move an update's `teamId` asks for, or null when it asks for none (absent, or the current team). */
export function wantsMove(current: Deployment, teamId: unknown): Move | null {
  if (teamId === undefined) return null;
  const to = checkTeamId(teamId) ?? null;
  if (to === current.teamId) return null;
  if (to !== null && current.teamId !== null) {
    throw validationError([
      {
        field: 'teamId',
        message: "a team's deployment moves to another team in two steps: out of its team (teamId: null), then into the other",
      },
    ]);
  }
  return { from: current.teamId, to };
}

/** FORBIDDEN unless the viewer owns the team: only an owner takes a deployment out of it. */
function assertTeamOwner(access: DeploymentAccess): void {
  if (access.role !== 'owner') {
    throw new AppError('FORBIDDEN', "only the team's owners may move a deployment out of the team", {
      reason: 'team_role',
      role: access.role,
    });
  }
}

export async function moveDeployment(
  ctx: DeploymentContext,
  viewer: Viewer,
  access: DeploymentAccess,
  move: Move,
  change: { data: Prisma.DeploymentUpdateInput; expected?: number | null },
): Promise<Deployment> {
  const current = access.row;
  if (move.from !== null) assertTeamOwner(access);
  const into = move.to === null ? null : await managedTeam(ctx, viewer, move.to, 'move deployments into the team');
  const now = ctx.clock.now();
  const expected = typeof change.expected === 'number' ? { revision: change.expected } : {};
  const data = { ...change.data, updatedAt: now, revision: { increment: 1 } };
  if (move.to === null) Object.assign(data, { team: { disconnect: true }, owner: { connect: { id: viewer.userId } } });
  else Object.assign(data, { team: { connect: { id: move.to } } });
  try {
    return await ctx.db.prisma.$transaction(async (tx) => {
      if (into) await enforceTeamQuota(tx, into.teamId, 'deployments');
      else await enforceQuota(tx, viewer.userId, 'deployments');
      const row = await tx.deployment.update({ where: { ...sameHolder(current), ...expected }, data });
      const teamId = (move.to ?? move.from)!;
      const details = { from: move.from, to: move.to, name: row.name };
      await recordAudit(tx, now, {
        teamId,
        action: 'deployment.moved',
        actorUserId: viewer.userId,
        targetType: 'deployment',
        targetId: row.id,
        details,
      });
      return row;
    });
  } catch (error) {
    if ((error as { code?: string }).code !== 'P2025') throw error;
    const again = await ctx.db.prisma.deployment.findFirst({ where: sameHolder(current), select: { revision: true } });
    if (again && typeof change.expected === 'number') checkRevision('deployment', current.id, again.revision, change.expected);
    throw notFound('deployment', current.id);
  }
}
