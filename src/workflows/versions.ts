import type { Prisma, Workflow, WorkflowVersion } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { afterPosition, newestFirstOrderBy } from '../db/keyset.js';
import { AppError, notFound } from '../errors.js';
import type { WorkflowManifest } from '../manifest/types.js';
import { pageLimit, timeCursorOf, timeCursorPosition, toPage, type Page } from '../pagination.js';
import { canRead, findReadable } from './access.js';
import { teamRolesFor } from './team-access.js';
import { versionDigest } from './digest.js';
import { completeVersionsWithoutDigest, copyCurrentDigests, newestVersionIds, versionsWithoutDigest } from './sql.js';
import type { VersionPageInput, WorkflowContext } from './types.js';

/** A workflow's history: its versions, read one or a page at a time, and their digests. */

export async function listVersions(ctx: WorkflowContext, viewer: Viewer, workflowId: string, input: VersionPageInput) {
  await findReadable(ctx, viewer, workflowId);
  return versionPage(ctx, workflowId, input);
}

/** The same for a workflow row already read (a nested GraphQL field): the read check is made on the row. */
export async function listVersionsOf(
  ctx: WorkflowContext,
  viewer: Viewer,
  workflow: Pick<Workflow, 'id' | 'ownerId' | 'visibility' | 'teamId'>,
  input: VersionPageInput,
) {
  if (!canRead(viewer, workflow, await teamRolesFor(ctx.db.prisma, viewer.userId, [workflow]))) throw notFound('workflow', workflow.id);
  return versionPage(ctx, workflow.id, input);
}

/**
 * The first page of versions of each of several workflows the caller has already checked, in two
 * statements whatever their number (a dashboard list asking for each workflow's versions): the
 * ids of each workflow's newest `limit + 1` versions, then those rows.
 */
export async function firstVersionPages(
  ctx: WorkflowContext,
  workflowIds: readonly string[],
  input: { limit?: number | null },
): Promise<Page<WorkflowVersion>[]> {
  const prisma = ctx.db.prisma;
  const limit = pageLimit(input.limit);
  const ranked = await prisma.$queryRaw<{ id: string }[]>(newestVersionIds(workflowIds, limit + 1));
  const rows = ranked.length
    ? await prisma.workflowVersion.findMany({
        where: { id: { in: ranked.map((r) => r.id) } },
        orderBy: newestFirstOrderBy('createdAt'),
      })
    : [];
  const byWorkflow = new Map<string, WorkflowVersion[]>(workflowIds.map((id) => [id, []]));
  for (const row of rows) byWorkflow.get(row.workflowId)?.push(row);
  return workflowIds.map((id) =>
    toPage(
      byWorkflow.get(id)!,
      limit,
      `versions:${id}`,
      (v) => timeCursorOf(v.createdAt, v.id),
      (v) => v,
    ),
  );
}

async function versionPage(ctx: WorkflowContext, workflowId: string, input: VersionPageInput) {
  const limit = pageLimit(input.limit);
  const where: Prisma.WorkflowVersionWhereInput = { workflowId };
  if (input.cursor) where.OR = afterPosition('createdAt', timeCursorPosition(input.cursor, `versions:${workflowId}`));
  const rows = await ctx.db.prisma.workflowVersion.findMany({ where, orderBy: newestFirstOrderBy('createdAt'), take: limit + 1 });
  return toPage(
    rows,
    limit,
    `versions:${workflowId}`,
    (v) => timeCursorOf(v.createdAt, v.id),
    (v) => v,
  );
}

export async function getVersion(ctx: WorkflowContext, viewer: Viewer, workflowId: string, version: string) {
  await findReadable(ctx, viewer, workflowId);
  const row = await ctx.db.prisma.workflowVersion.findUnique({ where: { workflowId_version: { workflowId, version } } });
  if (!row) throw new AppError('NOT_FOUND', `workflow '${workflowId}' has no version '${version}'`, { workflowId, version });
  return row;
}

/**
 * Gives every version row without a digest its digest, and every workflow its current version's:
 * rows recorded before digests existed, or written by something other than the service. Run at
 * start, before serving; idempotent (it reads only rows whose digest is null, and a digest is a
 * function of the row, so two instances starting together write the same value). Returns how
 * many versions it filled.
 */
export async function fillMissingDigests(ctx: WorkflowContext): Promise<number> {
  const prisma = ctx.db.prisma;
  const BATCH = 500;
  let filled = 0;
  await prisma.$executeRaw(completeVersionsWithoutDigest);
  // Bounded: each round fills its whole batch, so the rounds end when the rows do.
  for (let round = 0; round < 100_000; round += 1) {
    const rows = await prisma.$queryRaw<
      {
        id: string;
        workflowId: string;
        ownerId: string;
        version: string;
        name: string;
        description: string;
        category: string;
        tags: string[];
        manifestText: string;
      }[]
    >(versionsWithoutDigest(BATCH));
    for (const v of rows) {
      const digest = versionDigest(v.workflowId, v.ownerId, v.version, {
        ...v,
        manifest: JSON.parse(v.manifestText) as WorkflowManifest,
      });
      await prisma.workflowVersion.updateMany({ where: { id: v.id, digest: null }, data: { digest } });
    }
    filled += rows.length;
    if (rows.length < BATCH) break;
  }
  await prisma.$executeRaw(copyCurrentDigests);
  return filled;
}
