import { refuseIfTakenDown } from '../moderation/service.js';
import type { LibraryEntry, Prisma } from '@prisma/client';
import { isUniqueViolation } from '../db/errors.js';
import { AppError, notFound } from '../errors.js';
import type { Viewer } from '../auth/viewer.js';
import { adapterSet } from '../manifest/adapters.js';
import { ADAPTERS } from '../manifest/types.js';
import { beforeTimeCursor, pageLimit, timeCursorOf, toPage, type Page } from '../pagination.js';
import { enforceQuota } from '../limits/quota.js';
import type { ServiceDeps } from '../service-deps.js';
import { addLibraryEntry, canRead } from '../workflows/service.js';
import { lockWorkflowForSubscription } from '../workflows/sql.js';

export type LibraryQuery = { include?: Prisma.LibraryEntryInclude; select?: Prisma.LibraryEntrySelect };

type Tx = Prisma.TransactionClient;

export function createLibraryService({ db, clock }: ServiceDeps) {
  const prisma = db.prisma;

  async function listLibrary(
    viewer: Viewer,
    input: { limit?: number | null; cursor?: string | null; activeOnly?: boolean | null },
    query: LibraryQuery = {},
  ): Promise<Page<LibraryEntry>> {
    const limit = pageLimit(input.limit);
    const where: Prisma.LibraryEntryWhereInput = { userId: viewer.userId, ...(input.activeOnly ? { isActive: true } : {}) };
    if (input.cursor) where.OR = beforeTimeCursor(input.cursor, 'library', 'addedAt');
    const rows = await prisma.libraryEntry.findMany({ where, orderBy: [{ addedAt: 'desc' }, { id: 'desc' }], take: limit + 1, ...query });
    return toPage(
      rows as LibraryEntry[],
      limit,
      'library',
      (e) => timeCursorOf(e.addedAt, e.id),
      (e) => e,
    );
  }

  async function findEntry(viewer: Viewer, workflowId: string, client: Tx | typeof prisma = prisma): Promise<LibraryEntry> {
    const entry = await client.libraryEntry.findUnique({ where: { userId_workflowId: { userId: viewer.userId, workflowId } } });
    if (!entry) throw new AppError('NOT_FOUND', `workflow '${workflowId}' is not in your library`, { workflowId });
    return entry;
  }

  /**
   * Adds a workflow to the caller's library: another user's public workflow as a subscription,
   * or one of the caller's own workflows whose entry they removed earlier.
   */
  async function addToLibrary(
    viewer: Viewer,
    workflowId: string,
    input: { enabledAdapters?: string[] | null; autoUpdate?: boolean | null },
    query: LibraryQuery = {},
  ) {
    const enabledAdapters = input.enabledAdapters ? adapterSet(input.enabledAdapters) : [...ADAPTERS];
    const now = clock.now();
    let entryId = '';
    try {
      await prisma.$transaction(async (tx) => {
        // Taken with the lock an update takes: a subscription and a change of visibility are
        // serialised, so one that waited reads the visibility the owner committed.
        await tx.$queryRaw(lockWorkflowForSubscription(workflowId));
        const workflow = await tx.workflow.findUnique({ where: { id: workflowId } });
        if (!workflow || !canRead(viewer, workflow)) throw notFound('workflow', workflowId);
        const existing = await tx.libraryEntry.findUnique({
          where: { userId_workflowId: { userId: viewer.userId, workflowId } },
          select: { id: true },
        });
        if (existing) throw alreadyInLibrary(workflowId);
        const own = workflow.ownerId === viewer.userId;
        if (!own) refuseIfTakenDown(workflow, 'added to a library');
        if (!own) await enforceQuota(tx, viewer.userId, 'subscriptions');
        const entry = await addLibraryEntry(tx, {
          userId: viewer.userId,
          workflowId,
          sourceType: own ? (workflow.forkedFromWorkflowId ? 'forked' : 'owned') : 'subscribed',
          sourceUserId: own && workflow.forkedFromUserId ? workflow.forkedFromUserId : workflow.ownerId,
          version: workflow.currentVersion,
          now,
          enabledAdapters,
          autoUpdate: own ? true : (input.autoUpdate ?? true),
        });
        entryId = entry.id;
        if (!own) await tx.workflow.update({ where: { id: workflowId }, data: { subscribersCount: { increment: 1 } } });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw alreadyInLibrary(workflowId);
      throw error;
    }
    return prisma.libraryEntry.findUniqueOrThrow({ where: { id: entryId }, ...query });
  }

  async function updateLibraryEntry(
    viewer: Viewer,
    workflowId: string,
    input: { isActive?: boolean | null; enabledAdapters?: string[] | null },
    query: LibraryQuery = {},
  ) {
    if ((input.isActive === undefined || input.isActive === null) && !input.enabledAdapters) {
      throw new AppError('VALIDATION_ERROR', 'nothing to change: send isActive and/or enabledAdapters', {
        fields: [{ field: 'isActive', message: 'isActive or enabledAdapters is required' }],
      });
    }
    const enabledAdapters = input.enabledAdapters ? adapterSet(input.enabledAdapters) : undefined;
    const entry = await findEntry(viewer, workflowId);
    return prisma.libraryEntry.update({
      where: { id: entry.id },
      data: {
        ...(typeof input.isActive === 'boolean' ? { isActive: input.isActive } : {}),
        ...(enabledAdapters ? { enabledAdapters } : {}),
        updatedAt: clock.now(),
      },
      ...query,
    });
  }

  /**
   * Removes a workflow from the caller's library. Ending a subscription also takes the workflow
   * out of the caller's deployments; removing an owned or forked workflow's entry only hides it
   * from the library (the workflow itself stays, and may still be bundled in deployments).
   */
  async function removeFromLibrary(viewer: Viewer, workflowId: string) {
    await prisma.$transaction(async (tx) => {
      const entry = await findEntry(viewer, workflowId, tx);
      await tx.libraryEntry.delete({ where: { id: entry.id } });
      if (entry.sourceType === 'subscribed') {
        await tx.deploymentWorkflow.deleteMany({ where: { workflowId, deployment: { ownerId: viewer.userId } } });
        await tx.workflow.updateMany({
          where: { id: workflowId, subscribersCount: { gt: 0 } },
          data: { subscribersCount: { decrement: 1 } },
        });
      }
    });
    return { workflowId, deleted: true as const };
  }

  return { listLibrary, addToLibrary, updateLibraryEntry, removeFromLibrary };
}

function alreadyInLibrary(workflowId: string): AppError {
  return new AppError('CONFLICT', 'this workflow is already in your library', { workflowId });
}
