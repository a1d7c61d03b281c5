import type { Prisma } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { AppError } from '../errors.js';
import { pageLimit, timeCursorOf, timeCursorPosition, toPage, type Page } from '../pagination.js';
import { recordAudit } from './audit.js';
import { assertNotBillingOwner, syncSeats } from './billing-owner.js';
import { assertManager, checkRole, lockTeam, membershipOf, targetMember, TEAM_ROLES } from './roles.js';
import type { ListInput, TeamContext, TeamMemberView, Tx } from './types.js';

/** A team's members: who is in it, their roles, and how they leave it. */

export async function listMembers(ctx: TeamContext, viewer: Viewer, input: ListInput): Promise<Page<TeamMemberView>> {
  const prisma = ctx.db.prisma;
  await membershipOf(prisma, input.teamId, viewer.userId);
  const limit = pageLimit(input.limit);
  const where: Prisma.TeamMemberWhereInput = { teamId: input.teamId };
  if (input.cursor) {
    const { at, id } = timeCursorPosition(input.cursor, 'team-members');
    where.OR = [{ joinedAt: { lt: at } }, { joinedAt: at, userId: { lt: id } }];
  }
  const rows = await prisma.teamMember.findMany({
    where,
    orderBy: [{ joinedAt: 'desc' }, { userId: 'desc' }],
    take: limit + 1,
    select: { userId: true, role: true, joinedAt: true, user: { select: { email: true, displayName: true } } },
  });
  return toPage(
    rows,
    limit,
    'team-members',
    (m) => timeCursorOf(m.joinedAt, m.userId),
    (m) => ({ userId: m.userId, email: m.user.email, displayName: m.user.displayName, role: m.role, joinedAt: m.joinedAt }),
  );
}

/** CONFLICT when the change would leave the team without an owner. */
async function assertOtherOwner(tx: Tx, teamId: string, userId: string, what: string): Promise<void> {
  const owners = await tx.teamMember.count({ where: { teamId, role: 'owner', userId: { not: userId } } });
  if (owners === 0)
    throw new AppError('CONFLICT', `a team always has at least one owner: make another member an owner before you ${what}`, {
      reason: 'last_owner',
    });
}

export async function updateMember(
  ctx: TeamContext,
  viewer: Viewer,
  input: { teamId: string; userId: string; role: string },
): Promise<TeamMemberView> {
  const role = checkRole(input.role, TEAM_ROLES);
  const { teamId, userId } = input;
  return ctx.db.prisma.$transaction(async (tx) => {
    await lockTeam(tx, teamId);
    const me = await membershipOf(tx, teamId, viewer.userId);
    assertManager(me.role, "change members' roles");
    const target = await targetMember(tx, teamId, userId);
    // Ownership is given and taken by owners only.
    if (me.role !== 'owner' && (role === 'owner' || target.role === 'owner'))
      throw new AppError('FORBIDDEN', "only the team's owners may make someone an owner or change an owner's role", {
        reason: 'team_role',
        role: me.role,
      });
    if (target.role === 'owner' && role !== 'owner') {
      await assertOtherOwner(tx, teamId, userId, "change this owner's role");
      assertNotBillingOwner(me.team.billingOwnerId, userId, teamId, "change this owner's role");
    }
    const updated = await tx.teamMember.update({
      where: { teamId_userId: { teamId, userId } },
      data: { role },
      select: { userId: true, role: true, joinedAt: true, user: { select: { email: true, displayName: true } } },
    });
    if (target.role !== role)
      await recordAudit(tx, ctx.clock.now(), {
        teamId,
        action: 'member.role_changed',
        actorUserId: viewer.userId,
        targetType: 'user',
        targetId: userId,
        details: { from: target.role, to: role },
      });
    return { userId, email: updated.user.email, displayName: updated.user.displayName, role: updated.role, joinedAt: updated.joinedAt };
  });
}

/** Takes a member off a team, in the caller's transaction with the team locked, and updates the seats. */
async function dropMember(
  ctx: TeamContext,
  tx: Tx,
  member: { teamId: string; billingOwnerId: string; userId: string },
  actor: string | null,
  reason: string,
): Promise<void> {
  const { teamId, billingOwnerId, userId } = member;
  await tx.teamMember.delete({ where: { teamId_userId: { teamId, userId } } });
  await recordAudit(tx, ctx.clock.now(), {
    teamId,
    action: 'member.removed',
    actorUserId: actor,
    targetType: 'user',
    targetId: userId,
    details: { reason },
  });
  await syncSeats(ctx, tx, billingOwnerId);
}

/** Removes a member; any member may remove themselves (leave the team). */
export async function removeMember(
  ctx: TeamContext,
  viewer: Viewer,
  input: { teamId: string; userId: string },
): Promise<{ teamId: string; userId: string; deleted: true }> {
  const { teamId, userId } = input;
  const leaving = userId === viewer.userId;
  await ctx.db.prisma.$transaction(
    async (tx) => {
      await lockTeam(tx, teamId);
      const me = await membershipOf(tx, teamId, viewer.userId);
      if (!leaving) assertManager(me.role, 'remove members');
      const target = await targetMember(tx, teamId, userId);
      if (target.role === 'owner') {
        if (!leaving && me.role !== 'owner')
          throw new AppError('FORBIDDEN', "only the team's owners may remove an owner", { reason: 'team_role', role: me.role });
        await assertOtherOwner(tx, teamId, userId, leaving ? 'leave' : 'remove this owner');
      }
      assertNotBillingOwner(me.team.billingOwnerId, userId, teamId, leaving ? 'leave' : 'remove this owner');
      const billingOwnerId = me.team.billingOwnerId;
      await dropMember(ctx, tx, { teamId, billingOwnerId, userId }, viewer.userId, leaving ? 'left' : 'removed');
    },
    { timeout: 30_000 },
  );
  return { teamId, userId, deleted: true };
}

/**
 * Before an account is deleted (src/services.ts, beforeDelete): refused while the person is the
 * only owner, or the billing owner, of a team that has other members; otherwise their
 * memberships end (a team of theirs alone ends with them) and the seats follow.
 */
export async function prepareAccountDeletion(ctx: TeamContext, userId: string): Promise<void> {
  const prisma = ctx.db.prisma;
  const memberships = await prisma.teamMember.findMany({
    where: { userId },
    select: { teamId: true, role: true, team: { select: { name: true, billingOwnerId: true } } },
  });
  const blocking: { teamId: string; name: string }[] = [];
  for (const m of memberships) {
    const others = await prisma.teamMember.findMany({ where: { teamId: m.teamId, userId: { not: userId } }, select: { role: true } });
    if (others.length === 0) continue;
    if (m.team.billingOwnerId === userId || (m.role === 'owner' && !others.some((o) => o.role === 'owner')))
      blocking.push({ teamId: m.teamId, name: m.team.name });
  }
  if (blocking.length)
    throw new AppError(
      'CONFLICT',
      `you are the only owner or the billing owner of ${blocking.length === 1 ? 'a team' : `${blocking.length} teams`} with other members (${blocking.map((b) => b.teamId).join(', ')}): make another member an owner and hand billing to them (PUT /v1/teams/:teamId/billing-owner), then delete the account`,
      { reason: 'sole_team_owner', teams: blocking },
    );
  for (const m of memberships) {
    await prisma.$transaction(
      async (tx) => {
        await lockTeam(tx, m.teamId);
        if ((await tx.teamMember.count({ where: { teamId: m.teamId, userId: { not: userId } } })) === 0) {
          await tx.team.delete({ where: { id: m.teamId } });
          return;
        }
        // The team's deployments the person made stay the team's: their rows pass to the billing owner.
        await tx.deployment.updateMany({ where: { teamId: m.teamId, ownerId: userId }, data: { ownerId: m.team.billingOwnerId } });
        await dropMember(ctx, tx, { teamId: m.teamId, billingOwnerId: m.team.billingOwnerId, userId }, userId, 'account_deleted');
      },
      { timeout: 30_000 },
    );
  }
}
