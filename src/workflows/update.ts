import type { Prisma, Workflow } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { newId } from '../clock.js';
import { enforceVersionQuota } from '../limits/quota.js';
import { manifestTextOf } from '../manifest/stored.js';
import type { WorkflowManifest } from '../manifest/types.js';
import { checkContent, publishingRefused, type CheckResult } from '../marketplace/content-check.js';
import { checkRevision } from '../revisions.js';
import { findOwned } from './access.js';
import { versionDigest } from './digest.js';
import { cleanWorkflowInput, mergeWorkflowUpdate, type CleanWorkflowInput, type WorkflowUpdateInput } from './input.js';
import { lockWorkflowForUpdate } from './sql.js';
import { authoredColumns, findingsColumn, reload, versionFields } from './rows.js';
import type { Tx, WorkflowContext, WorkflowQuery } from './types.js';
import { nextVersion } from './versioning.js';
import { applyMove, plannedMove } from './move.js';
import { recordWorkflowEvent } from './team-access.js';

/** Changes by a workflow's owner: updates (with the versions they record), the dry-run check, deletion. */

/**
 * `expectedRevision` (REST: If-Match) makes the update conditional: when the workflow has been
 * written since the client read that revision, nothing changes and the answer is 412.
 */
export async function updateWorkflow(
  ctx: WorkflowContext,
  viewer: Viewer,
  workflowId: string,
  { teamId, ...input }: WorkflowUpdateInput & { teamId?: unknown },
  query: WorkflowQuery = {},
  precondition: { expectedRevision?: number | null } = {},
) {
  const now = ctx.clock.now();
  return ctx.db.prisma.$transaction(async (tx) => {
    await tx.$queryRaw(lockWorkflowForUpdate(workflowId));
    const current = await findOwned(ctx, viewer, workflowId, tx);
    checkRevision('workflow', workflowId, current.revision, precondition.expectedRevision);
    const move = await plannedMove(tx, viewer, current, teamId);
    const clean = cleanWorkflowInput(mergeWorkflowUpdate(input, current));
    // A public workflow never holds content the publishing check blocks: made public or changed.
    const check = checkContent(clean);
    if (clean.visibility === 'public' && check.status === 'blocked') throw publishingRefused(check);
    // Versions compare content, not key order (jsonb's or the user's).
    const version = nextVersion(current.currentVersion, { ...current, manifest: current.manifest as unknown as WorkflowManifest }, clean);
    const digest = version ? versionDigest(workflowId, current.ownerId, version, clean) : undefined;
    if (version) await enforceVersionQuota(tx, await planHolderOf(tx, current), workflowId);
    const text = manifestTextOf(clean.manifest);
    const becomesPublic = clean.visibility === 'public' && current.visibility !== 'public';
    await tx.workflow.update({
      where: { id: workflowId },
      data: {
        ...authoredColumns(clean),
        manifestText: text,
        updatedAt: now,
        revision: { increment: 1 },
        checkFindings: findingsColumn(check),
        ...(version ? { currentVersion: version, digest } : {}),
        ...(becomesPublic ? { publishedAt: now } : {}),
        ...(clean.visibility === 'private' && current.visibility === 'public' ? { publishedAt: null } : {}),
      },
    });
    const change: VersionChange = { current, clean, check, text, version, digest, now };
    await writeVersion(tx, change);
    if (version || becomesPublic) await moveFollowingEntries(tx, change);
    if (current.teamId && Object.values(input).some((v) => v !== undefined))
      await recordWorkflowEvent(tx, now, viewer, { id: workflowId, teamId: current.teamId }, 'workflow.updated', {
        fields: Object.keys(input).filter((k) => input[k as keyof typeof input] !== undefined),
        ...(version ? { version } : {}),
      });
    if (move) await applyMove(tx, viewer, current, move, now);
    return reload(tx, workflowId, query);
  });
}

/** What an update wrote: the row before it, the cleaned input, and the version it made (null: none). */
interface VersionChange {
  current: Workflow;
  clean: CleanWorkflowInput;
  check: CheckResult;
  text: string;
  version: string | null;
  digest: string | undefined;
  now: Date;
}

/** Records the update's new version, or keeps the current version's row in step with what agents see of it. */
async function writeVersion(tx: Tx, { current, clean, check, text, version, digest, now }: VersionChange) {
  const workflowId = current.id;
  if (version) {
    await tx.workflowVersion.create({
      data: {
        id: newId('wfv'),
        workflowId,
        version,
        ...versionFields(clean),
        digest,
        manifest: clean.manifest as unknown as Prisma.InputJsonValue,
        manifestText: text,
        manifestYaml: clean.manifestYaml,
        checkFindings: findingsColumn(check),
        createdAt: now,
      },
    });
  } else if (text !== current.manifestText || clean.manifestYaml !== (current.manifestYaml ?? null)) {
    // The same content written in another key order, or other YAML (comments, layout): the
    // current version shows it as written now.
    await tx.workflowVersion.updateMany({
      where: { workflowId, version: current.currentVersion },
      data: { manifestText: text, manifestYaml: clean.manifestYaml },
    });
  }
  // The current version's findings follow what agents see of it (its name and description too).
  if (!version)
    await tx.workflowVersion.updateMany({
      where: { workflowId, version: current.currentVersion },
      data: { checkFindings: findingsColumn(check) },
    });
}

/**
 * Library entries that follow the source move to its current version; the others stay. While
 * the workflow is private only the owner's entry follows: subscribers keep their entries
 * (shown unavailable) but learn nothing of versions made meanwhile, and catch up when it is
 * public again. A version the publishing check found anything in is held: subscribers' entries
 * stay where they are until each subscriber accepts it (library service, acceptUpdate).
 */
async function moveFollowingEntries(tx: Tx, { current, clean, check, version, now }: VersionChange) {
  const held = check.findings.length > 0;
  await tx.libraryEntry.updateMany({
    where: { workflowId: current.id, autoUpdate: true, ...(clean.visibility === 'public' && !held ? {} : ownEntries(current)) },
    data: { workflowVersion: version ?? current.currentVersion, updatedAt: now },
  });
}

/** Whose plan a workflow's limits are those of: its author's, or for a team's its billing owner's. */
async function planHolderOf(tx: Tx, workflow: Workflow): Promise<string> {
  if (!workflow.teamId) return workflow.ownerId;
  const team = await tx.team.findUnique({ where: { id: workflow.teamId }, select: { billingOwnerId: true } });
  return team?.billingOwnerId ?? workflow.ownerId;
}

/** The entries that follow a workflow's versions while it is private: its author's, or its team's members'. */
function ownEntries(workflow: Workflow): Prisma.LibraryEntryWhereInput {
  if (workflow.teamId) return { user: { teamMemberships: { some: { teamId: workflow.teamId } } } };
  return { userId: workflow.ownerId };
}

/**
 * The publishing check on what the workflow would be after `input` (the fields of an update,
 * each optional), without storing anything: the author's dry run before publishing.
 */
export async function checkWorkflow(
  ctx: WorkflowContext,
  viewer: Viewer,
  workflowId: string,
  input: WorkflowUpdateInput,
): Promise<CheckResult> {
  const current = await findOwned(ctx, viewer, workflowId);
  return checkContent(cleanWorkflowInput(mergeWorkflowUpdate(input, current)));
}

export async function deleteWorkflow(ctx: WorkflowContext, viewer: Viewer, workflowId: string) {
  await ctx.db.prisma.$transaction(async (tx) => {
    const current = await findOwned(ctx, viewer, workflowId, tx);
    // Versions, library entries (everyone's), reviews and deployment bundles go with it.
    await tx.workflow.delete({ where: { id: workflowId } });
    if (current.teamId)
      await recordWorkflowEvent(tx, ctx.clock.now(), viewer, { id: workflowId, teamId: current.teamId }, 'workflow.deleted', {
        name: current.name,
      });
  });
  return { workflowId, deleted: true as const };
}
