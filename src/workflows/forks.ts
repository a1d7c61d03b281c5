import type { Prisma } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { newId } from '../clock.js';
import { isUniqueViolation } from '../db/errors.js';
import { AppError, notFound, validationError, type FieldProblem } from '../errors.js';
import { recordCreated } from '../idempotency/within-create.js';
import { enforceQuota } from '../limits/quota.js';
import { writtenManifest } from '../manifest/stored.js';
import { checkContent } from '../marketplace/content-check.js';
import { refuseIfTakenDown } from '../moderation/service.js';
import { cleanName, NAME_MAX, truncateCharacters } from '../text.js';
import { findReadable } from './access.js';
import { insertNewWorkflow } from './create.js';
import { findingsColumn, reload } from './rows.js';
import type { Tx, WorkflowContext, WorkflowQuery } from './types.js';

/** Forks: a user's own copy of another user's public workflow, once per user ever (spec 2.9). */

export async function forkWorkflow(
  ctx: WorkflowContext,
  viewer: Viewer,
  workflowId: string,
  input: { name?: string | null },
  query: WorkflowQuery = {},
) {
  const problems: FieldProblem[] = [];
  const requested = input.name === undefined || input.name === null ? null : cleanName(input.name, problems);
  if (problems.length) throw validationError(problems);
  const id = newId('wf');
  const now = ctx.clock.now();
  try {
    return await ctx.db.prisma.$transaction(async (tx) => {
      const original = await findReadable(ctx, viewer, workflowId, tx);
      // A team's workflow is forked by its members into their own accounts, private or public.
      if (original.teamId === null && original.ownerId === viewer.userId)
        throw new AppError('FORBIDDEN', 'you own this workflow: edit it or create a new one instead of forking it', { workflowId });
      if (original.visibility !== 'public' && original.teamId === null) throw notFound('workflow', workflowId);
      refuseIfTakenDown(original, 'forked');
      if (!original.allowForks) throw new AppError('FORBIDDEN', 'the owner of this workflow has disabled forking', { workflowId });
      // Once ever per user (spec 2.9): the record outlives the fork, so deleting the fork does not
      // allow a second one, nor count the same user twice in stats.forks.
      const already = await tx.workflowFork.findUnique({ where: { workflowId_userId: { workflowId, userId: viewer.userId } } });
      if (already) throw forkedTwice(workflowId, await forkIdOf(tx, viewer.userId, workflowId));
      await enforceQuota(tx, viewer.userId, 'workflows');
      await tx.workflowFork.create({ data: { workflowId, userId: viewer.userId, createdAt: now } });
      const name = requested ?? truncateCharacters(`${original.name} (copy)`, NAME_MAX);
      await insertNewWorkflow(
        tx,
        {
          id,
          ownerId: viewer.userId,
          name,
          description: original.description,
          visibility: 'private',
          category: original.category,
          tags: original.tags,
          allowForks: true,
          manifest: original.manifest as Prisma.InputJsonValue,
          manifestText: original.manifestText,
          manifestYaml: original.manifestYaml,
          forkedFromWorkflowId: original.id,
          forkedFromUserId: original.ownerId,
          forkedFromVersion: original.currentVersion,
          checkFindings: findingsColumn(checkContent({ ...original, name, manifest: writtenManifest(original) })),
          createdAt: now,
        },
        original.ownerId,
      );
      await tx.workflow.update({ where: { id: original.id }, data: { forksCount: { increment: 1 } } });
      await recordCreated(tx, `/workflows/${id}`);
      return reload(tx, id, query);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw forkedTwice(workflowId);
    throw error;
  }
}

/**
 * The caller's fork of a workflow (spec 2.9: once per user, ever): null when never forked; `forkId`
 * null when the fork was deleted, which does not allow another.
 */
export async function viewerFork(
  ctx: WorkflowContext,
  viewer: Viewer,
  workflowId: string,
): Promise<{ forkedAt: Date; forkId: string | null } | null> {
  const prisma = ctx.db.prisma;
  const record = await prisma.workflowFork.findUnique({ where: { workflowId_userId: { workflowId, userId: viewer.userId } } });
  if (!record) return null;
  return { forkedAt: record.createdAt, forkId: await forkIdOf(prisma, viewer.userId, workflowId) };
}

/** The id of `userId`'s fork of a workflow, or null when they have none (never forked, or deleted it). */
async function forkIdOf(client: Tx, userId: string, workflowId: string): Promise<string | null> {
  const fork = await client.workflow.findFirst({ where: { ownerId: userId, forkedFromWorkflowId: workflowId }, select: { id: true } });
  return fork?.id ?? null;
}

/** `forkId`: the caller's fork; null: it was deleted; undefined: not known (a concurrent fork won). */
function forkedTwice(workflowId: string, forkId?: string | null): AppError {
  return new AppError(
    'CONFLICT',
    forkId === null
      ? 'you forked this workflow before and deleted the fork; a workflow can be forked once per user, so subscribe to it instead'
      : `you have already forked this workflow${forkId ? `: your fork is ${forkId}` : ''}; a workflow can be forked once per user`,
    {
      workflowId,
      reason: 'already_forked',
      ...(forkId ? { forkId } : {}),
    },
  );
}
