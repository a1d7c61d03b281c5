import type { PrismaClient, Workflow } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { AppError, notFound } from '../errors.js';
import { suspensionReason } from '../moderation/service.js';
import type { Tx, WorkflowContext } from './types.js';

/** Who may read or change a workflow: the checks every workflow operation makes first. */

/** Another user's private workflow is answered as not found: its existence is not leaked. */
export function canRead(viewer: Viewer, workflow: Pick<Workflow, 'ownerId' | 'visibility'>): boolean {
  return workflow.ownerId === viewer.userId || workflow.visibility === 'public';
}

/**
 * Why a library entry's or a deployment's workflow cannot be used by `userId` now, or null when it
 * can: another user's workflow made private stays in their library and deployments, unavailable.
 */
export function unavailableReason(
  userId: string,
  workflow: Pick<Workflow, 'ownerId' | 'visibility'> & Partial<Pick<Workflow, 'moderationState' | 'moderationReason'>>,
): string | null {
  // Suspended by the operators: served in no deployment, its author's included.
  const suspended = suspensionReason(workflow);
  if (suspended) return suspended;
  if (workflow.ownerId === userId || workflow.visibility === 'public') return null;
  return 'the author has made this workflow private; it comes back when they make it public again';
}

/** The workflow `viewer` may read, read with `client` (a transaction, or the client outside one). */
export async function findReadable(
  ctx: WorkflowContext,
  viewer: Viewer,
  workflowId: string,
  client: Tx | PrismaClient = ctx.db.prisma,
): Promise<Workflow> {
  const workflow = await client.workflow.findUnique({ where: { id: workflowId } });
  if (!workflow || !canRead(viewer, workflow)) throw notFound('workflow', workflowId);
  return workflow;
}

/** The workflow for a change by its owner: not visible → 404, visible but someone else's → 403. */
export async function findOwned(
  ctx: WorkflowContext,
  viewer: Viewer,
  workflowId: string,
  client: Tx | PrismaClient = ctx.db.prisma,
): Promise<Workflow> {
  const workflow = await findReadable(ctx, viewer, workflowId, client);
  if (workflow.ownerId !== viewer.userId)
    throw new AppError('FORBIDDEN', 'only the owner of this workflow may change or delete it', { workflowId });
  return workflow;
}
