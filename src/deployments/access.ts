import type { Deployment, Prisma, TeamRole } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { notFound, validationError } from '../errors.js';
import { assertManager } from '../teams/roles.js';
import type { DeploymentContext } from './context.js';
import { WORKFLOWS_MAX } from './types.js';

/**
 * Who may read, use or change a deployment, and which workflows it may bundle. A personal
 * deployment is its owner's; a team deployment (`teamId` set) is read and used by every member of
 * the team and changed by its owners and admins, whoever created it (docs/teams.md, "Team
 * deployments"). A deployment the viewer may not see is NOT_FOUND, never FORBIDDEN, so its
 * existence does not leak. Membership is read on every request: nothing of it is cached.
 */

type Db = Prisma.TransactionClient;

/** A deployment with the viewer's team role in it (null for a personal one, which is theirs). */
export interface DeploymentAccess {
  row: Deployment;
  role: TeamRole | null;
}

/** The role of `userId` in the team, or null when they are not in it. */
export async function teamRoleOf(db: Db, teamId: string, userId: string): Promise<TeamRole | null> {
  const member = await db.teamMember.findUnique({ where: { teamId_userId: { teamId, userId } }, select: { role: true } });
  return member?.role ?? null;
}

/** Whether `userId` may read and use the deployment: its owner, or for a team's, a member. */
export async function maySee(db: Db, row: Pick<Deployment, 'ownerId' | 'teamId'>, userId: string): Promise<boolean> {
  if (row.teamId === null) return row.ownerId === userId;
  return (await teamRoleOf(db, row.teamId, userId)) !== null;
}

/** The deployment the viewer may see, with their role in its team; anything else is NOT_FOUND. */
export async function findVisible(ctx: DeploymentContext, viewer: Viewer, deploymentId: string, db: Db = ctx.db.prisma) {
  const row = await db.deployment.findUnique({ where: { id: deploymentId } });
  if (!row) throw notFound('deployment', deploymentId);
  if (row.teamId === null) {
    if (row.ownerId !== viewer.userId) throw notFound('deployment', deploymentId);
    return { row, role: null } satisfies DeploymentAccess;
  }
  const role = await teamRoleOf(db, row.teamId, viewer.userId);
  if (!role) throw notFound('deployment', deploymentId);
  return { row, role } satisfies DeploymentAccess;
}

/** The deployment for a change: its owner's, or a team's for its owners and admins (a member: FORBIDDEN, team_role). */
export async function findChangeable(
  ctx: DeploymentContext,
  viewer: Viewer,
  deploymentId: string,
  db: Db = ctx.db.prisma,
): Promise<DeploymentAccess> {
  const access = await findVisible(ctx, viewer, deploymentId, db);
  if (access.role) assertManager(access.role, "change or delete the team's deployments");
  return access;
}

/** The condition naming the deployment as it was found: a personal one still its owner's, a team's still the team's. */
export function sameHolder(row: Pick<Deployment, 'id' | 'ownerId' | 'teamId'>): Prisma.DeploymentWhereUniqueInput {
  return row.teamId === null ? { id: row.id, ownerId: row.ownerId, teamId: null } : { id: row.id, teamId: row.teamId };
}

/**
 * For a personal deployment each id must name a personal workflow the viewer owns, or a public one
 * they subscribe to (a team's private workflow is used through the team's deployments); for a team's (`teamId`), a workflow of that team, a public workflow, or one the
 * viewer subscribes to. Unknown ids, other users' and other teams' private workflows get the same
 * answer, so none of them leaks.
 */
export async function checkWorkflowIds(
  ctx: DeploymentContext,
  viewer: Viewer,
  workflowIds: readonly string[],
  teamId: string | null = null,
): Promise<string[]> {
  const fail = (message: string, extra: Record<string, unknown> = {}) => validationError([{ field: 'workflowIds', message }], extra);
  if (workflowIds.length === 0) throw fail('workflowIds must name at least one workflow');
  if (workflowIds.length > WORKFLOWS_MAX) throw fail(`workflowIds may name at most ${WORKFLOWS_MAX} workflows`);
  const duplicates = [...new Set(workflowIds.filter((id, i) => workflowIds.indexOf(id) !== i))];
  if (duplicates.length) throw fail(`workflowIds names a workflow more than once: ${duplicates.join(', ')}`, { duplicateIds: duplicates });
  // A subscription whose author made it private may stay named (it is kept, unavailable), so a
  // client can send back the list it read; it was public when the viewer subscribed.
  const subscribed: Prisma.WorkflowWhereInput = { libraryEntries: { some: { userId: viewer.userId, sourceType: 'subscribed' } } };
  const allowed: Prisma.WorkflowWhereInput[] =
    teamId === null ? [{ ownerId: viewer.userId, teamId: null }, subscribed] : [{ teamId }, { visibility: 'public' }, subscribed];
  const usable = await ctx.db.prisma.workflow.findMany({ where: { id: { in: [...workflowIds] }, OR: allowed }, select: { id: true } });
  const ok = new Set(usable.map((w) => w.id));
  const invalid = workflowIds.filter((id) => !ok.has(id));
  if (invalid.length) {
    const what =
      teamId === null
        ? 'workflows you own or have subscribed to in your library'
        : "the team's workflows, public workflows or your subscriptions";
    throw fail(`workflowIds must name ${what}; these are not: ${invalid.join(', ')}`, { invalidIds: invalid });
  }
  return [...workflowIds];
}
