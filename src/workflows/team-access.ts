import type { TeamRole, Workflow } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { AppError, notFound, validationError } from '../errors.js';
import { recordAudit, type AuditEvent } from '../teams/audit.js';
import type { Tx, WorkflowContext } from './types.js';

/**
 * Team workflows (docs/teams.md, "Team workflows"): who may do what to one is decided by the
 * caller's role in its team, never by its author (`ownerId`), who may have left the team.
 */

/** The caller's role in each team they are in, by team id: what the read checks of team workflows ask. */
export type TeamRoles = ReadonlyMap<string, TeamRole>;

/** No team roles: only personal and public workflows are readable with it. */
export const NO_TEAMS: TeamRoles = new Map();

/** The viewer's roles in the teams of `workflows`, in one statement (none when no workflow is a team's). */
export async function teamRolesFor(client: Tx, userId: string, workflows: readonly Pick<Workflow, 'teamId'>[]): Promise<TeamRoles> {
  const teamIds = [...new Set(workflows.map((w) => w.teamId).filter((id): id is string => id !== null))];
  if (teamIds.length === 0) return NO_TEAMS;
  const rows = await client.teamMember.findMany({ where: { userId, teamId: { in: teamIds } }, select: { teamId: true, role: true } });
  return new Map(rows.map((r) => [r.teamId, r.role]));
}

/** A team workflow's change by someone who may see it but is not one of the team's owners or admins. */
function teamRoleRefusal(workflowId: string, role: TeamRole | null, what: string): AppError {
  return new AppError('FORBIDDEN', `only the team's ${what === 'move it out of the team' ? 'owners' : 'owners and admins'} may ${what}`, {
    reason: 'team_role',
    workflowId,
    ...(role ? { role } : {}),
  });
}

/**
 * The team workflow `workflow` for a change the caller's role must allow: owners and admins
 * change (`manage`), only owners move it out (`owner`). Not readable → 404; readable (a member,
 * or a public one) but not allowed → 403 team_role.
 */
export function assertTeamRole(workflow: Pick<Workflow, 'id' | 'visibility'>, role: TeamRole | null, needed: 'manage' | 'owner'): void {
  if (role === null && workflow.visibility !== 'public') throw notFound('workflow', workflow.id);
  const allowed = needed === 'owner' ? role === 'owner' : role === 'owner' || role === 'admin';
  if (!allowed) throw teamRoleRefusal(workflow.id, role, needed === 'owner' ? 'move it out of the team' : 'change or delete it');
}

/** A `teamId` as sent: a team's id, null (none), or a VALIDATION_ERROR naming the field. */
export function teamIdOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' && value.trim() !== '') return value;
  throw validationError([{ field: 'teamId', message: 'teamId must be the id of a team, or null' }]);
}

/** The caller's role in a team they mean to put a workflow in: NOT_FOUND for an outsider, FORBIDDEN for a member. */
export async function managerOf(tx: Tx, viewer: Viewer, teamId: string): Promise<TeamRole> {
  const member = await tx.teamMember.findUnique({ where: { teamId_userId: { teamId, userId: viewer.userId } }, select: { role: true } });
  if (!member) throw notFound('team', teamId);
  if (member.role === 'member')
    throw new AppError('FORBIDDEN', "only the team's owners and admins may put workflows in it", {
      reason: 'team_role',
      teamId,
      role: 'member',
    });
  return member.role;
}

/** An entry in the team's audit log (docs/teams.md, "Audit log"), in the transaction of the change. */
export function recordWorkflowEvent(
  tx: Tx,
  at: Date,
  viewer: Viewer,
  workflow: { id: string; teamId: string },
  action: Extract<AuditEvent['action'], `workflow.${string}`>,
  details?: Record<string, unknown>,
): Promise<void> {
  return recordAudit(tx, at, {
    teamId: workflow.teamId,
    action,
    actorUserId: viewer.userId,
    targetType: 'workflow',
    targetId: workflow.id,
    ...(details ? { details } : {}),
  });
}

/** The viewer's role in each of `teamIds`, or null where they are not a member. */
export async function viewerTeamRoles(ctx: WorkflowContext, viewer: Viewer, teamIds: readonly string[]): Promise<(TeamRole | null)[]> {
  const roles = await teamRolesFor(
    ctx.db.prisma,
    viewer.userId,
    teamIds.map((teamId) => ({ teamId })),
  );
  return teamIds.map((id) => roles.get(id) ?? null);
}
