import type { Prisma, TeamRole } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { newId } from '../clock.js';
import { validationError, type FieldProblem } from '../errors.js';
import { recordCreated } from '../idempotency/within-create.js';
import { pageLimit, timeCursorOf, timeCursorPosition, toPage, type Page } from '../pagination.js';
import { withContext, type ServiceDeps } from '../service-deps.js';
import { cleanName } from '../text.js';
import {
  auditCsv,
  auditNotAllowed,
  readAuditPage,
  recordAudit,
  type AuditEntryView,
  type AuditEvent,
  type AuditFilterInput,
} from './audit.js';
import { setBillingOwner, syncSeats } from './billing-owner.js';
import { createInvitations } from './invitations.js';
import { listMembers, prepareAccountDeletion, removeMember, updateMember } from './members.js';
import { membershipOf } from './roles.js';
import type { ListInput, TeamContext, TeamDeps, TeamView, Tx } from './types.js';

/**
 * The team service: each operation a function of its context (the database, the clock, the seat
 * billing), teams and their logs here, members (members.ts), billing (billing-owner.ts) and
 * invitations (invitations.ts) in the modules named for them.
 */

export type { TeamDeps, TeamMemberView, TeamView } from './types.js';

/** The role of a user in a team, or null when they are not in it: for the services of team resources. */
async function roleIn(ctx: TeamContext, teamId: string, userId: string, tx: Tx = ctx.db.prisma): Promise<TeamRole | null> {
  const member = await tx.teamMember.findUnique({ where: { teamId_userId: { teamId, userId } }, select: { role: true } });
  return member?.role ?? null;
}

/** Writes an audit entry of a change the service made elsewhere (team workflows, deployments, keys). */
function record(ctx: TeamContext, event: AuditEvent, tx: Tx = ctx.db.prisma): Promise<void> {
  return recordAudit(tx, ctx.clock.now(), event);
}

async function createTeam(ctx: TeamContext, viewer: Viewer, input: { name: string }): Promise<TeamView> {
  const problems: FieldProblem[] = [];
  const name = cleanName(input.name, problems);
  if (problems.length) throw validationError(problems);
  const now = ctx.clock.now();
  const teamId = newId('team');
  await ctx.db.prisma.$transaction(async (tx) => {
    await recordCreated(tx, `/teams/${teamId}`);
    await tx.team.create({ data: { id: teamId, name, billingOwnerId: viewer.userId, createdAt: now, updatedAt: now } });
    await tx.teamMember.create({ data: { teamId, userId: viewer.userId, role: 'owner', joinedAt: now } });
    await recordAudit(tx, now, { teamId, action: 'team.created', actorUserId: viewer.userId, targetType: 'team', targetId: teamId });
  });
  return { teamId, name, role: 'owner', billingOwnerId: viewer.userId, createdAt: now };
}

async function listTeams(
  ctx: TeamContext,
  viewer: Viewer,
  input: { limit?: number | null; cursor?: string | null },
): Promise<Page<TeamView>> {
  const limit = pageLimit(input.limit);
  const where: Prisma.TeamMemberWhereInput = { userId: viewer.userId };
  if (input.cursor) {
    const { at, id } = timeCursorPosition(input.cursor, 'teams');
    where.OR = [{ joinedAt: { lt: at } }, { joinedAt: at, teamId: { lt: id } }];
  }
  const rows = await ctx.db.prisma.teamMember.findMany({
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

/** One team the caller is in, with their role; NOT_FOUND for a team they are not in, as for one that does not exist. */
async function getTeam(ctx: TeamContext, viewer: Viewer, teamId: string): Promise<TeamView> {
  const { role, team } = await membershipOf(ctx.db.prisma, teamId, viewer.userId);
  return { teamId: team.id, name: team.name, role, billingOwnerId: team.billingOwnerId, createdAt: team.createdAt };
}

/** The team's log, for its owners and admins; `format: csv` is the export. */
async function readTeamAudit(ctx: TeamContext, viewer: Viewer, teamId: string): Promise<void> {
  const me = await membershipOf(ctx.db.prisma, teamId, viewer.userId);
  if (me.role === 'member') throw auditNotAllowed();
}

async function teamAuditLog(ctx: TeamContext, viewer: Viewer, input: ListInput & AuditFilterInput): Promise<Page<AuditEntryView>> {
  await readTeamAudit(ctx, viewer, input.teamId);
  return readAuditPage(ctx.db.prisma, { teamId: input.teamId }, input);
}

async function teamAuditCsv(
  ctx: TeamContext,
  viewer: Viewer,
  input: { teamId: string } & AuditFilterInput,
): Promise<{ contentType: string; body: string }> {
  await readTeamAudit(ctx, viewer, input.teamId);
  return { contentType: 'text/csv; charset=utf-8', body: await auditCsv(ctx.db.prisma, { teamId: input.teamId }, input) };
}

function myAuditLog(ctx: TeamContext, viewer: Viewer, input: AuditFilterInput & { limit?: number | null; cursor?: string | null }) {
  return readAuditPage(ctx.db.prisma, { userId: viewer.userId }, input);
}

async function myAuditCsv(ctx: TeamContext, viewer: Viewer, input: AuditFilterInput = {}) {
  return { contentType: 'text/csv; charset=utf-8', body: await auditCsv(ctx.db.prisma, { userId: viewer.userId }, input) };
}

export function createTeamService(deps: ServiceDeps, teamDeps: TeamDeps) {
  const context: TeamContext = { db: deps.db, clock: deps.clock, setSeats: teamDeps.setSeats };
  const invitations = createInvitations(deps, { syncSeats: (tx, billingOwnerId) => syncSeats(context, tx, billingOwnerId) });
  return {
    ...withContext(context, {
      roleIn,
      record,
      createTeam,
      getTeam,
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
    }),
    ...invitations,
  };
}
