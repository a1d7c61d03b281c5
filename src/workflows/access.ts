import type { PrismaClient, TeamRole, Workflow } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { AppError, notFound } from '../errors.js';
import { suspensionReason } from '../moderation/service.js';
import { assertTeamRole, NO_TEAMS, teamRolesFor, type TeamRoles } from './team-access.js';
import type { Tx, WorkflowContext } from './types.js';

/** Who may read or change a workflow: the checks every workflow operation makes first. */

type Readable = Pick<Workflow, 'ownerId' | 'visibility'> & Partial<Pick<Workflow, 'teamId'>>;

/**
 * Another user's private workflow is answered as not found: its existence is not leaked. A team's
 * private workflow is readable by the team's members (`roles`: the viewer's roles in the teams of
 * the workflows asked about), whoever wrote it; its author after leaving the team reads it no more.
 */
export function canRead(viewer: Viewer, workflow: Readable, roles: TeamRoles = NO_TEAMS): boolean {
  if (workflow.visibility === 'public') return true;
  if (workflow.teamId) return roles.has(workflow.teamId);
  return workflow.ownerId === viewer.userId;
}

/**
 * Why a library entry's or a deployment's workflow cannot be used by `userId` now, or null when it
 * can: another user's workflow made private stays in their library and deployments, unavailable;
 * a team's private workflow is usable by its members (`roles`).
 */
export function unavailableReason(
  userId: string,
  workflow: Readable & Partial<Pick<Workflow, 'moderationState' | 'moderationReason'>>,
  roles: TeamRoles = NO_TEAMS,
): string | null {
  // Suspended by the operators: served in no deployment, its author's included.
  const suspended = suspensionReason(workflow);
  if (suspended) return suspended;
  if (canRead({ userId, email: null }, workflow, roles)) return null;
  if (workflow.teamId) return 'this workflow belongs to a team you are not in; it comes back when its team makes it public';
  return 'the author has made this workflow private; it comes back when they make it public again';
}

/** Whether `viewer` may read `workflow` now, asking for their role in its team when it has one. */
export async function mayRead(client: Tx | PrismaClient, viewer: Viewer, workflow: Readable): Promise<boolean> {
  if (workflow.visibility === 'public' || !workflow.teamId) return canRead(viewer, workflow);
  return canRead(viewer, workflow, await teamRolesFor(client, viewer.userId, [{ teamId: workflow.teamId }]));
}

/** The workflow `viewer` may read, read with `client` (a transaction, or the client outside one). */
export async function findReadable(
  ctx: WorkflowContext,
  viewer: Viewer,
  workflowId: string,
  client: Tx | PrismaClient = ctx.db.prisma,
): Promise<Workflow> {
  const workflow = await client.workflow.findUnique({ where: { id: workflowId } });
  if (!workflow || !(await mayRead(client, viewer, workflow))) throw notFound('workflow', workflowId);
  return workflow;
}

/**
 * The workflow for a change: a personal one by its owner, a team's by the team's owners and
 * admins (docs/teams.md, "Team workflows"). Not visible → 404, visible but not allowed → 403.
 * `role` is the caller's role in the workflow's team (null: personal, or not a member).
 */
export async function findOwned(
  ctx: WorkflowContext,
  viewer: Viewer,
  workflowId: string,
  client: Tx | PrismaClient = ctx.db.prisma,
): Promise<Workflow & { role: TeamRole | null }> {
  const workflow = await client.workflow.findUnique({ where: { id: workflowId } });
  if (!workflow) throw notFound('workflow', workflowId);
  if (workflow.teamId) {
    const role = (await teamRolesFor(client, viewer.userId, [workflow])).get(workflow.teamId) ?? null;
    assertTeamRole(workflow, role, 'manage');
    return { ...workflow, role };
  }
  if (!canRead(viewer, workflow)) throw notFound('workflow', workflowId);
  if (workflow.ownerId !== viewer.userId)
    throw new AppError('FORBIDDEN', 'only the owner of this workflow may change or delete it', { workflowId });
  return { ...workflow, role: null };
}
