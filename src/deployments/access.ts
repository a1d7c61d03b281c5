import type { Deployment } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { notFound, validationError } from '../errors.js';
import type { DeploymentContext } from './context.js';
import { WORKFLOWS_MAX } from './types.js';

/**
 * Who may read or change a deployment, and which workflows it may bundle. Another user's
 * deployment is NOT_FOUND, never FORBIDDEN, so its existence does not leak.
 */

/** The condition naming deployment `deploymentId` when `viewer` owns it. */
export function ownedBy(viewer: Viewer, deploymentId: string) {
  return { id: deploymentId, ownerId: viewer.userId };
}

export async function findOwned(ctx: DeploymentContext, viewer: Viewer, deploymentId: string): Promise<Deployment> {
  const row = await ctx.db.prisma.deployment.findFirst({ where: ownedBy(viewer, deploymentId) });
  if (!row) throw notFound('deployment', deploymentId);
  return row;
}

/**
 * Each id must name a workflow the viewer owns, or a public one they subscribe to. Unknown ids
 * and other users' private workflows get the same answer, so neither leaks.
 */
export async function checkWorkflowIds(ctx: DeploymentContext, viewer: Viewer, workflowIds: readonly string[]): Promise<string[]> {
  const fail = (message: string, extra: Record<string, unknown> = {}) => validationError([{ field: 'workflowIds', message }], extra);
  if (workflowIds.length === 0) throw fail('workflowIds must name at least one workflow');
  if (workflowIds.length > WORKFLOWS_MAX) throw fail(`workflowIds may name at most ${WORKFLOWS_MAX} workflows`);
  const duplicates = [...new Set(workflowIds.filter((id, i) => workflowIds.indexOf(id) !== i))];
  if (duplicates.length) throw fail(`workflowIds names a workflow more than once: ${duplicates.join(', ')}`, { duplicateIds: duplicates });
  const usable = await ctx.db.prisma.workflow.findMany({
    where: {
      id: { in: [...workflowIds] },
      // A subscription whose author made it private may stay named (it is kept, unavailable), so a
      // client can send back the list it read; it was public when the viewer subscribed.
      OR: [{ ownerId: viewer.userId }, { libraryEntries: { some: { userId: viewer.userId, sourceType: 'subscribed' } } }],
    },
    select: { id: true },
  });
  const ok = new Set(usable.map((w) => w.id));
  const invalid = workflowIds.filter((id) => !ok.has(id));
  if (invalid.length) {
    throw fail(`workflowIds must name workflows you own or have subscribed to in your library; these are not: ${invalid.join(', ')}`, {
      invalidIds: invalid,
    });
  }
  return [...workflowIds];
}
