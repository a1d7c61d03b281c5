import type { Deployment } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { newId } from '../clock.js';
import { recordCreated } from '../idempotency/within-create.js';
import { enforceQuota } from '../limits/quota.js';
import { adapterSet } from '../manifest/adapters.js';
import { ADAPTERS } from '../manifest/types.js';
import { checkWorkflowIds } from './access.js';
import type { DeploymentContext } from './context.js';
import { checkDescription, checkName } from './input.js';
import type { CreateDeploymentInput } from './types.js';

export async function createDeployment(ctx: DeploymentContext, viewer: Viewer, input: CreateDeploymentInput): Promise<Deployment> {
  const name = checkName(input.name);
  const description = checkDescription(input.description) ?? null;
  const enabledAdapters =
    input.enabledAdapters === undefined || input.enabledAdapters === null ? [...ADAPTERS] : adapterSet(input.enabledAdapters);
  const workflowIds = await checkWorkflowIds(ctx, viewer, input.workflowIds);
  const now = ctx.clock.now();
  const row = await ctx.db.prisma.$transaction(async (tx) => {
    await enforceQuota(tx, viewer.userId, 'deployments');
    const id = newId('dep');
    await recordCreated(tx, `/deployments/${id}`);
    return tx.deployment.create({
      data: {
        id,
        ownerId: viewer.userId,
        name,
        description,
        enabledAdapters,
        status: 'active',
        allowAnonymous: input.allowAnonymous ?? false,
        createdAt: now,
        updatedAt: now,
        workflows: { create: workflowIds.map((workflowId, position) => ({ workflowId, position })) },
      },
    });
  });
  return row;
}
