import type { Prisma, TeamRole } from '@prisma/client';
import { AppError, notFound, validationError } from '../errors.js';
import { readPlan } from '../billing/service.js';

/** The roles of a team member (docs/teams.md, "Roles"), strongest first. */
export const TEAM_ROLES = ['owner', 'admin', 'member'] as const satisfies readonly TeamRole[];
/** What an invitation may offer: ownership is given by an owner to a member, never by mail. */
export const INVITABLE_ROLES = ['admin', 'member'] as const satisfies readonly TeamRole[];

/** The plans on which a team may have more than one member. */
const TEAM_PLANS = new Set(['team', 'enterprise']);

/** `role` as a role of `allowed`, or a VALIDATION_ERROR naming the field. */
export function checkRole<R extends TeamRole>(role: string, allowed: readonly R[], field = 'role'): R {
  if ((allowed as readonly string[]).includes(role)) return role as R;
  throw validationError([{ field, message: `${field} must be ${allowed.map((r) => `"${r}"`).join(' or ')}, got "${role}"` }]);
}

/** The same answer for a team that does not exist and one the caller is not in: nothing leaks. */
const teamNotFound = (teamId: string) => notFound('team', teamId);

/** The caller's membership of a team, or NOT_FOUND (an outsider learns nothing of the team). */
export async function membershipOf(db: Prisma.TransactionClient, teamId: string, userId: string) {
  const member = await db.teamMember.findUnique({
    where: { teamId_userId: { teamId, userId } },
    select: { role: true, team: { select: { id: true, name: true, billingOwnerId: true, createdAt: true } } },
  });
  if (!member) throw teamNotFound(teamId);
  return member;
}

/** The member `userId` of a team whose row the transaction locked, or NOT_FOUND. */
export async function targetMember(tx: Prisma.TransactionClient, teamId: string, userId: string) {
  const target = await tx.teamMember.findUnique({ where: { teamId_userId: { teamId, userId } } });
  if (!target) throw notFound('member', userId);
  return target;
}

/** FORBIDDEN for a member who may not do `what`: owners and admins manage a team. */
export function assertManager(role: TeamRole, what: string): void {
  if (role === 'member') throw new AppError('FORBIDDEN', `only the team's owners and admins may ${what}`, { reason: 'team_role', role });
}

/**
 * PLAN_LIMIT_EXCEEDED unless the billing owner's plan lets the team have more than one member:
 * the team plan or enterprise (docs/plans.md, "Teams and seats").
 */
export async function assertTeamPlan(db: Prisma.TransactionClient, billingOwnerId: string, teamId: string): Promise<void> {
  const plan = await readPlan(db, billingOwnerId);
  if (TEAM_PLANS.has(plan)) return;
  throw new AppError(
    'PLAN_LIMIT_EXCEEDED',
    `a team with more than one member needs its billing owner on the team or enterprise plan; the billing owner is on the ${plan} plan: upgrade (POST /v1/billing/checkout with priceId team_monthly or team_annual) or hand billing to an owner on the team plan (PUT /v1/teams/${teamId}/billing-owner)`,
    { quota: 'teamMembers', plan, limit: 1, teamId, requiredPlans: [...TEAM_PLANS] },
  );
}

/** Locks the team's row, so membership changes of one team run one after another. */
export async function lockTeam(db: Prisma.TransactionClient, teamId: string): Promise<void> {
  await db.$queryRaw`SELECT id FROM teams WHERE id = ${teamId} FOR UPDATE`;
}

/** The seats the billing owner pays for: every distinct member of the teams they pay for, themselves included. */
export async function seatsOf(db: Prisma.TransactionClient, billingOwnerId: string): Promise<number> {
  const [row] = await db.$queryRaw<{ seats: bigint }[]>`
    SELECT count(DISTINCT m.user_id) AS seats FROM team_members m JOIN teams t ON t.id = m.team_id
    WHERE t.billing_owner_id = ${billingOwnerId}`;
  return Math.max(1, Number(row?.seats ?? 0));
}
