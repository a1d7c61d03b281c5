import { refuseIfTakenDown } from '../moderation/service.js';
import type { LibraryEntry, Prisma, PrismaClient } from '@prisma/client';
import { isUniqueViolation } from '../db/errors.js';
import { afterPosition } from '../db/keyset.js';
import { AppError, notFound } from '../errors.js';
import type { Viewer } from '../auth/viewer.js';
import { adapterSet } from '../manifest/adapters.js';
import { ADAPTERS } from '../manifest/types.js';
import { newestFirstPage, pageLimit, timeCursorPosition, type Page } from '../pagination.js';
import { enforceQuota } from '../limits/quota.js';
import { withContext, type ServiceDeps } from '../service-deps.js';
import { addLibraryEntry, canRead, mayRead, teamRolesFor } from '../workflows/service.js';
import { lockWorkflowForSubscription, lockWorkflowForUpdate } from '../workflows/sql.js';
import { storedCheck, type CheckResult } from '../marketplace/content-check.js';
import { versionChanges, type VersionChange } from './version-diff.js';
import { recordCreated } from '../idempotency/within-create.js';

export type LibraryQuery = { include?: Prisma.LibraryEntryInclude; select?: Prisma.LibraryEntrySelect };

type Tx = Prisma.TransactionClient;

/** A subscription's newer version, waiting for the subscriber (docs/marketplace.md, "Updates"). */
export interface LibraryUpdate {
  /** The version the entry uses now. */
  fromVersion: string;
  /** The workflow's latest version. */
  latestVersion: string;
  /** True when the entry follows updates but this one waits: the check found something in it. */
  held: boolean;
  /** The publishing check on the latest version (null when recorded before the check existed). */
  check: CheckResult | null;
  /** What changed from the entry's version to the latest. */
  changes: VersionChange[];
}

/** The entry of a subscription, as the update lookup needs it. */
export interface UpdateSubject {
  workflowId: string;
  sourceType: string;
  workflowVersion: string;
  autoUpdate: boolean;
}

/** What the library operations are built from: the database and the clock. */
type LibraryContext = Pick<ServiceDeps, 'db' | 'clock'>;

async function listLibrary(
  ctx: LibraryContext,
  viewer: Viewer,
  input: { limit?: number | null; cursor?: string | null; activeOnly?: boolean | null },
  query: LibraryQuery = {},
): Promise<Page<LibraryEntry>> {
  const limit = pageLimit(input.limit);
  const where: Prisma.LibraryEntryWhereInput = { userId: viewer.userId, ...(input.activeOnly ? { isActive: true } : {}) };
  if (input.cursor) where.OR = afterPosition('addedAt', timeCursorPosition(input.cursor, 'library'));
  const rows = await ctx.db.prisma.libraryEntry.findMany({
    where,
    orderBy: [{ addedAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
    ...query,
  });
  return newestFirstPage(rows as LibraryEntry[], limit, 'library', 'addedAt');
}

async function findEntry(
  ctx: LibraryContext,
  viewer: Viewer,
  workflowId: string,
  client: Tx | PrismaClient = ctx.db.prisma,
): Promise<LibraryEntry> {
  const entry = await client.libraryEntry.findUnique({ where: { userId_workflowId: { userId: viewer.userId, workflowId } } });
  if (!entry) throw new AppError('NOT_FOUND', `workflow '${workflowId}' is not in your library`, { workflowId });
  return entry;
}

/**
 * Adds a workflow to the caller's library: another user's public workflow as a subscription,
 * or one of the caller's own workflows whose entry they removed earlier.
 */
async function addToLibrary(
  ctx: LibraryContext,
  viewer: Viewer,
  workflowId: string,
  input: { enabledAdapters?: string[] | null; autoUpdate?: boolean | null },
  query: LibraryQuery = {},
) {
  const enabledAdapters = input.enabledAdapters ? adapterSet(input.enabledAdapters) : [...ADAPTERS];
  const now = ctx.clock.now();
  let entryId = '';
  try {
    await ctx.db.prisma.$transaction(async (tx) => {
      // Taken with the lock an update takes: a subscription and a change of visibility are
      // serialised, so one that waited reads the visibility the owner committed.
      await tx.$queryRaw(lockWorkflowForSubscription(workflowId));
      const workflow = await tx.workflow.findUnique({ where: { id: workflowId } });
      if (!workflow || !(await mayRead(tx, viewer, workflow))) throw notFound('workflow', workflowId);
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
      await recordCreated(tx, `/library/${workflowId}`);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw alreadyInLibrary(workflowId);
    throw error;
  }
  return ctx.db.prisma.libraryEntry.findUniqueOrThrow({ where: { id: entryId }, ...query });
}

async function updateLibraryEntry(
  ctx: LibraryContext,
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
  const entry = await findEntry(ctx, viewer, workflowId);
  return ctx.db.prisma.libraryEntry.update({
    where: { id: entry.id },
    data: {
      ...(typeof input.isActive === 'boolean' ? { isActive: input.isActive } : {}),
      ...(enabledAdapters ? { enabledAdapters } : {}),
      updatedAt: ctx.clock.now(),
    },
    ...query,
  });
}

/**
 * Removes a workflow from the caller's library. Ending a subscription also takes the workflow
 * out of the caller's deployments; removing an owned or forked workflow's entry only hides it
 * from the library (the workflow itself stays, and may still be bundled in deployments).
 */
async function removeFromLibrary(ctx: LibraryContext, viewer: Viewer, workflowId: string) {
  await ctx.db.prisma.$transaction(async (tx) => {
    const entry = await findEntry(ctx, viewer, workflowId, tx);
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

/**
 * The waiting update of each of the viewer's entries, or null (up to date, not a subscription, or
 * the workflow is not readable now), in two statements whatever their number: the workflows,
 * then the versions to compare.
 */
async function pendingUpdates(ctx: LibraryContext, viewer: Viewer, entries: readonly UpdateSubject[]): Promise<(LibraryUpdate | null)[]> {
  const subscribed = entries.filter((e) => e.sourceType === 'subscribed');
  if (subscribed.length === 0) return entries.map(() => null);
  const workflows = await ctx.db.prisma.workflow.findMany({
    where: { id: { in: [...new Set(subscribed.map((e) => e.workflowId))] } },
    select: { id: true, ownerId: true, visibility: true, teamId: true, currentVersion: true },
  });
  const roles = await teamRolesFor(ctx.db.prisma, viewer.userId, workflows);
  const latest = new Map(workflows.filter((w) => canRead(viewer, w, roles)).map((w) => [w.id, w.currentVersion]));
  const behind = subscribed.filter((e) => latest.has(e.workflowId) && latest.get(e.workflowId) !== e.workflowVersion);
  const versions = behind.length
    ? await ctx.db.prisma.workflowVersion.findMany({
        where: {
          OR: behind.flatMap((e) => [
            { workflowId: e.workflowId, version: e.workflowVersion },
            { workflowId: e.workflowId, version: latest.get(e.workflowId)! },
          ]),
        },
      })
    : [];
  const row = (workflowId: string, version: string) => versions.find((v) => v.workflowId === workflowId && v.version === version);
  return entries.map((e) => {
    if (!behind.includes(e)) return null;
    const latestVersion = latest.get(e.workflowId)!;
    const [from, to] = [row(e.workflowId, e.workflowVersion), row(e.workflowId, latestVersion)];
    if (!to) return null;
    return {
      fromVersion: e.workflowVersion,
      latestVersion,
      held: e.autoUpdate,
      check: storedCheck(to.checkFindings),
      // A version beyond the history's limit may be gone: then everything of the latest is new.
      changes: versionChanges(from ?? { manifest: {} }, to),
    };
  });
}

/**
 * Moves a subscription to the workflow's latest version: the subscriber accepts an update they
 * were shown (a pinned entry stays pinned, now at that version). With `version`, the version the
 * subscriber reviewed: a newer one published meanwhile is refused (CONFLICT), so nothing is
 * accepted unseen.
 */
async function acceptUpdate(
  ctx: LibraryContext,
  viewer: Viewer,
  workflowId: string,
  input: { version?: string | null },
  query: LibraryQuery = {},
) {
  const entryId = await ctx.db.prisma.$transaction(async (tx) => {
    // The lock an update of the workflow takes: a new version is recorded before or after, never between.
    await tx.$queryRaw(lockWorkflowForUpdate(workflowId));
    const entry = await findEntry(ctx, viewer, workflowId, tx);
    const workflow = await tx.workflow.findUnique({ where: { id: workflowId } });
    if (entry.sourceType !== 'subscribed' || !workflow)
      throw new AppError('CONFLICT', 'only a subscription has updates to accept: your own workflows are always at their latest version', {
        workflowId,
      });
    if (!(await mayRead(tx, viewer, workflow)))
      throw new AppError('CONFLICT', 'the author has made this workflow private: there is no update to accept until it is public again', {
        workflowId,
      });
    if (input.version != null && input.version !== workflow.currentVersion)
      throw new AppError(
        'CONFLICT',
        `version '${input.version}' is not the latest any more ('${workflow.currentVersion}' is): review the update again before accepting it`,
        { workflowId, version: input.version, latestVersion: workflow.currentVersion },
      );
    if (entry.workflowVersion !== workflow.currentVersion)
      await tx.libraryEntry.update({
        where: { id: entry.id },
        data: { workflowVersion: workflow.currentVersion, updatedAt: ctx.clock.now() },
      });
    return entry.id;
  });
  return ctx.db.prisma.libraryEntry.findUniqueOrThrow({ where: { id: entryId }, ...query });
}

export function createLibraryService({ db, clock }: ServiceDeps) {
  return withContext({ db, clock }, { listLibrary, addToLibrary, updateLibraryEntry, removeFromLibrary, pendingUpdates, acceptUpdate });
}

function alreadyInLibrary(workflowId: string): AppError {
  return new AppError('CONFLICT', 'this workflow is already in your library', { workflowId });
}
