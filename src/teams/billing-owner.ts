import type { Viewer } from '../auth/viewer.js';
import { AppError } from '../errors.js';
import { recordAudit } from './audit.js';
import { assertTeamPlan, lockTeam, membershipOf, seatsOf, targetMember } from './roles.js';
import type { TeamContext, TeamView, Tx } from './types.js';

/** Who pays for a team's seats, and how the seats follow its members. */

/** After a change of members: the billing owner's seats, at the provider, inside the change's transaction. */
export async function syncSeats(ctx: TeamContext, tx: Tx, billingOwnerId: string): Promise<void> {
  await ctx.setSeats(billingOwnerId, await seatsOf(tx, billingOwnerId), tx);
}

/** CONFLICT when the change would take the billing owner off the team's owners. */
export function assertNotBillingOwner(billingOwnerId: string, userId: string, teamId: string, what: string): void {
  if (billingOwnerId === userId)
    throw new AppError(
      'CONFLICT',
      `the team's billing owner stays an owner: hand billing to another owner (PUT /v1/teams/${teamId}/billing-owner) before you ${what}`,
      { reason: 'billing_owner' },
    );
}

/**
 * Hands the billing of a team to another of its owners, whose subscription then pays for its
 * seats; a team of more than one member needs them on the team or enterprise plan.
 */
export async function setBillingOwner(ctx: TeamContext, viewer: Viewer, input: { teamId: string; userId: string }): Promise<TeamView> {
  const { teamId, userId } = input;
  return ctx.db.prisma.$transaction(
    async (tx) => {
      await lockTeam(tx, teamId);
      const me = await membershipOf(tx, teamId, viewer.userId);
      if (me.role !== 'owner')
        throw new AppError('FORBIDDEN', "only the team's owners may hand its billing to another owner", {
          reason: 'team_role',
          role: me.role,
        });
      const target = await targetMember(tx, teamId, userId);
      if (target.role !== 'owner')
        throw new AppError('CONFLICT', "the billing owner must be one of the team's owners: make them an owner first", {
          reason: 'not_an_owner',
        });
      const previous = me.team.billingOwnerId;
      if (previous !== userId) {
        if ((await tx.teamMember.count({ where: { teamId } })) > 1) await assertTeamPlan(tx, userId, teamId);
        const updatedAt = ctx.clock.now();
        await tx.team.update({ where: { id: teamId }, data: { billingOwnerId: userId, updatedAt } });
        await recordAudit(tx, updatedAt, {
          teamId,
          action: 'billing_owner.changed',
          actorUserId: viewer.userId,
          targetType: 'user',
          targetId: userId,
          details: { from: previous, to: userId },
        });
        await syncSeats(ctx, tx, userId);
        await syncSeats(ctx, tx, previous);
      }
      return { teamId, name: me.team.name, role: me.role, billingOwnerId: userId, createdAt: me.team.createdAt };
    },
    { timeout: 30_000 },
  );
}
