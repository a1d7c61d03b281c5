import type { TeamRole, Workflow } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { AppError } from '../errors.js';
import { enforceQuota, enforceTeamQuota } from '../limits/quota.js';
import { addLibraryEntry } from './create.js';
import { assertTeamRole, managerOf, recordWorkflowEvent, teamIdOf } from './team-access.js';
import type { Tx } from './types.js';

/**
 * Moving a workflow between a person's account and a team (docs/teams.md, "Team workflows"): its
 * author moves a personal workflow into a team they own or administer; a team owner moves a team
 * workflow out, into their own account. Between two teams it goes through an owner's account.
 */

/** Where an update moves the workflow: into a team (its id) or out of its team (null). */
export interface Move {
  from: string | null;
  to: string | null;
}

/**
 * The move an update's `teamId` asks for, checked and counted toward the quota it enters, or
 * null when it asks for none (left out, or the workflow's team already). `current` is the row the
 * update locked, read with findOwned (so its author or a team owner or admin asks).
 */
export async function plannedMove(
  tx: Tx,
  viewer: Viewer,
  current: Workflow & { role: TeamRole | null },
  sent: unknown,
): Promise<Move | null> {
  if (sent === undefined) return null;
  const teamId = teamIdOf(sent);
  if (teamId === current.teamId) return null;
  if (current.teamId === null) {
    // Into a team: by its author (findOwned checked), an owner or admin of the team.
    await managerOf(tx, viewer, teamId!);
    await enforceTeamQuota(tx, teamId!, 'workflows');
    return { from: null, to: teamId };
  }
  assertTeamRole(current, current.role, 'owner');
  if (teamId !== null)
    throw new AppError(
      'CONFLICT',
      "a workflow moves between two teams through an owner's account: move it out of its team (teamId: null), then into the other",
      { reason: 'move_between_teams', workflowId: current.id, teamId: current.teamId },
    );
  await enforceQuota(tx, viewer.userId, 'workflows');
  return { from: current.teamId, to: null };
}

/**
 * Writes a planned move: the team column, and for a move out the new author (the owner who moved
 * it), who gets the workflow's library entry as their own; the entries of its former author and of
 * members stay (shown unavailable while it is private). One entry in the log of each team concerned.
 */
export async function applyMove(tx: Tx, viewer: Viewer, current: Workflow, move: Move, now: Date): Promise<void> {
  await tx.workflow.update({
    where: { id: current.id },
    data: { teamId: move.to, ...(move.to === null ? { ownerId: viewer.userId } : {}) },
  });
  if (move.to === null) {
    const entry = await tx.libraryEntry.findUnique({ where: { userId_workflowId: { userId: viewer.userId, workflowId: current.id } } });
    if (entry?.sourceType === 'subscribed')
      await tx.workflow.updateMany({
        where: { id: current.id, subscribersCount: { gt: 0 } },
        data: { subscribersCount: { decrement: 1 } },
      });
    if (entry)
      await tx.libraryEntry.update({
        where: { id: entry.id },
        data: {
          sourceType: 'owned',
          sourceUserId: viewer.userId,
          workflowVersion: current.currentVersion,
          autoUpdate: true,
          updatedAt: now,
        },
      });
    else
      await addLibraryEntry(tx, {
        userId: viewer.userId,
        workflowId: current.id,
        sourceType: 'owned',
        sourceUserId: viewer.userId,
        version: current.currentVersion,
        now,
      });
  }
  const details = { from: move.from, to: move.to, ...(move.to === null ? { previousOwnerId: current.ownerId } : {}) };
  for (const teamId of [move.from, move.to])
    if (teamId) await recordWorkflowEvent(tx, now, viewer, { id: current.id, teamId }, 'workflow.moved', details);
}
