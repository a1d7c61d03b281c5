import type { Prisma, TeamRole } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { newId } from '../clock.js';
import { AppError, notFound, validationError, type FieldProblem } from '../errors.js';
import { recordCreated } from '../idempotency/within-create.js';
import { pageLimit, timeCursorOf, timeCursorPosition, toPage, type Page } from '../pagination.js';
import type { ServiceDeps } from '../service-deps.js';
import { cleanName } from '../text.js';
import { auditCsv, auditNotAllowed, readAuditPage, recordAudit, type AuditEntryView, type AuditEvent } from './audit.js';
import { createInvitations } from './invitations.js';
import { assertManager, assertTeamPlan, checkRole, lockTeam, membershipOf, seatsOf, TEAM_ROLES } from './roles.js';

export interface TeamView {
  teamId: string;
  name: string;
  /** The caller's role in the team. */
  role: TeamRole;
  billingOwnerId: string;
  createdAt: Date;
}

export interface TeamMemberView {
  userId: string;
  email: string | null;
  displayName: string | null;
  role: TeamRole;
  joinedAt: Date;
}

export interface TeamDeps {
  /** Sets the seats the billing owner's subscription bills (src/billing/service.ts, setSeats). */
  setSeats(userId: string, seats: number, tx: Prisma.TransactionClient): Promise<void>;
}

type Tx = Prisma.TransactionClient;
type ListInput = { teamId: string; limit?: number | null; cursor?: string | null };

export function createTeamService(deps: ServiceDeps, teamDeps: TeamDeps) {
  const { db, clock } = deps;
  const prisma = db.prisma;

  /** After a change of members: the billing owner's seats, at the provider, inside the change's transaction. */
  async function syncSeats(tx: Tx, billingOwnerId: string): Promise<void> {
    await teamDeps.setSeats(billingOwnerId, await seatsOf(tx, billingOwnerId), tx);
  }

  const invitations = createInvitations(deps, { syncSeats });

  /** The role of a user in a team, or null when they are not in it: for the services of team resources. */
  async function roleIn(teamId: string, userId: string, tx: Tx = prisma): Promise<TeamRole | null> {
    const member = await tx.teamMember.findUnique({ where: { teamId_userId: { teamId, userId } }, select: { role: true } });
    return member?.role ?? null;
  }

  /** Writes an audit entry of a change the service made elsewhere (team workflows, deployments, keys). */
  function record(event: AuditEvent, tx: Tx = prisma): Promise<void> {
    return recordAudit(tx, clock.now(), event);
  }

  async function createTeam(viewer: Viewer, input: { name: string }): Promise<TeamView> {
    const problems: FieldProblem[] = [];
    const name = cleanName(input.name, problems);
    if (problems.length) throw validationError(problems);
    const now = clock.now();
    const teamId = newId('team');
    await prisma.$transaction(async (tx) => {
      await recordCreated(tx, `/teams/${teamId}`);
      await tx.team.create({ data: { id: teamId, name, billingOwnerId: viewer.userId, createdAt: now, updatedAt: now } });
      await tx.teamMember.create({ data: { teamId, userId: viewer.userId, role: 'owner', joinedAt: now } });
      await recordAudit(tx, now, { teamId, action: 'team.created', actorUserId: viewer.userId, targetType: 'team', targetId: teamId });
    });
    return { teamId, name, role: 'owner', billingOwnerId: viewer.userId, createdAt: now };
  }

  async function listTeams(viewer: Viewer, input: { limit?: number | null; cursor?: string | null }): Promise<Page<TeamView>> {
    const limit = pageLimit(input.limit);
    const where: Prisma.TeamMemberWhereInput = { userId: viewer.userId };
    if (input.cursor) {
      const { at, id } = timeCursorPosition(input.cursor, 'teams');
      where.OR = [{ joinedAt: { lt: at } }, { joinedAt: at, teamId: { lt: id } }];
    }
    const rows = await prisma.teamMember.findMany({
      where,
      orderBy: [{ joinedAt: 'desc' }, { teamId: 'desc' }],
      take: limit + 1,
      select: { role: true, joinedAt: true, teamId: true, team: { select: { name: true, billingOwnerId: true, createdAt: true } } },
    });
    return toPage(
      rows,
      limit,
      'teams',
      (m) => timeCursorOf(m.joinedAt, m.teamId),
      (m) => ({ teamId: m.teamId, name: m.team.name, role: m.role, billingOwnerId: m.team.billingOwnerId, createdAt: m.team.createdAt }),
    );
  }

  async function listMembers(viewer: Viewer, input: ListInput): Promise<Page<TeamMemberView>> {
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

  /** The member `userId` of a team whose row the transaction locked, or NOT_FOUND. */
  async function targetMember(tx: Tx, teamId: string, userId: string) {
    const target = await tx.teamMember.findUnique({ where: { teamId_userId: { teamId, userId } } });
    if (!target) throw notFound('member', userId);
    return target;
  }

  /** CONFLICT when the change would leave the team without an owner. */
  async function assertOtherOwner(tx: Tx, teamId: string, userId: string, what: string): Promise<void> {
    const owners = await tx.teamMember.count({ where: { teamId, role: 'owner', userId: { not: userId } } });
    if (owners === 0)
      throw new AppError('CONFLICT', `a team always has at least one owner: make another member an owner before you ${what}`, {
        reason: 'last_owner',
      });
  }

  /** CONFLICT when the change would take the billing owner off the team's owners. */
  function assertNotBillingOwner(billingOwnerId: string, userId: string, teamId: string, what: string): void {
    if (billingOwnerId === userId)
      throw new AppError(
        'CONFLICT',
        `the team's billing owner stays an owner: hand billing to another owner (PUT /v1/teams/${teamId}/billing-owner) before you ${what}`,
        { reason: 'billing_owner' },
      );
  }

  async function updateMember(viewer: Viewer, input: { teamId: string; userId: string; role: string }): Promise<TeamMemberView> {
    const role = checkRole(input.role, TEAM_ROLES);
    const { teamId, userId } = input;
    return prisma.$transaction(async (tx) => {
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
        await recordAudit(tx, clock.now(), {
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
  async function dropMember(tx: Tx, teamId: string, billingOwnerId: string, userId: string, actor: string | null, reason: string) {
    await tx.teamMember.delete({ where: { teamId_userId: { teamId, userId } } });
    await recordAudit(tx, clock.now(), {
      teamId,
      action: 'member.removed',
      actorUserId: actor,
      targetType: 'user',
      targetId: userId,
      details: { reason },
    });
    await syncSeats(tx, billingOwnerId);
  }

  /** Removes a member; any member may remove themselves (leave the team). */
  async function removeMember(
    viewer: Viewer,
    input: { teamId: string; userId: string },
  ): Promise<{ teamId: string; userId: string; deleted: true }> {
    const { teamId, userId } = input;
    const leaving = userId === viewer.userId;
    await prisma.$transaction(
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
        await dropMember(tx, teamId, me.team.billingOwnerId, userId, viewer.userId, leaving ? 'left' : 'removed');
      },
      { timeout: 30_000 },
    );
    return { teamId, userId, deleted: true };
  }

  /**
   * Hands the billing of a team to another of its owners, whose subscription then pays for its
   * seats; a team of more than one member needs them on the team or enterprise plan.
   */
  async function setBillingOwner(viewer: Viewer, input: { teamId: string; userId: string }): Promise<TeamView> {
    const { teamId, userId } = input;
    return prisma.$transaction(
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
          const updatedAt = clock.now();
          await tx.team.update({ where: { id: teamId }, data: { billingOwnerId: userId, updatedAt } });
          await recordAudit(tx, updatedAt, {
            teamId,
            action: 'billing_owner.changed',
            actorUserId: viewer.userId,
            targetType: 'user',
            targetId: userId,
            details: { from: previous, to: userId },
          });
          await syncSeats(tx, userId);
          await syncSeats(tx, previous);
        }
        return { teamId, name: me.team.name, role: me.role, billingOwnerId: userId, createdAt: me.team.createdAt };
      },
      { timeout: 30_000 },
    );
  }

  /** The team's log, for its owners and admins; `format: csv` is the export. */
  async function readTeamAudit(viewer: Viewer, teamId: string): Promise<void> {
    const me = await membershipOf(prisma, teamId, viewer.userId);
    if (me.role === 'member') throw auditNotAllowed();
  }

  async function teamAuditLog(viewer: Viewer, input: ListInput): Promise<Page<AuditEntryView>> {
    await readTeamAudit(viewer, input.teamId);
    return readAuditPage(prisma, { teamId: input.teamId }, input);
  }

  async function teamAuditCsv(viewer: Viewer, input: { teamId: string }): Promise<{ contentType: string; body: string }> {
    await readTeamAudit(viewer, input.teamId);
    return { contentType: 'text/csv; charset=utf-8', body: await auditCsv(prisma, { teamId: input.teamId }) };
  }

  const myAuditLog = (viewer: Viewer, input: { limit?: number | null; cursor?: string | null }) =>
    readAuditPage(prisma, { userId: viewer.userId }, input);

  const myAuditCsv = async (viewer: Viewer) => ({
    contentType: 'text/csv; charset=utf-8',
    body: await auditCsv(prisma, { userId: viewer.userId }),
  });

  /**
   * Before an account is deleted (src/services.ts, beforeDelete): refused while the person is the
   * only owner, or the billing owner, of a team that has other members; otherwise their
   * memberships end (a team of theirs alone ends with them) and the seats follow.
   */
  async function prepareAccountDeletion(userId: string): Promise<void> {
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
          if ((await tx.teamMember.count({ where: { teamId: m.teamId, userId: { not: userId } } })) === 0)
            await tx.team.delete({ where: { id: m.teamId } });
          else await dropMember(tx, m.teamId, m.team.billingOwnerId, userId, userId, 'account_deleted');
        },
        { timeout: 30_000 },
      );
    }
  }

  return {
    roleIn,
    record,
    createTeam,
    listTeams,
    listMembers,
    updateMember,
    removeMember,
    setBillingOwner,
    teamAuditLog,
    teamAuditCsv,
    myAuditLog,
    myAuditCsv,
    prepareAccountDeletion,
    ...invitations,
  };
}
