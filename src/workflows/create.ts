import type { Prisma } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { newId } from '../clock.js';
import { recordCreated } from '../idempotency/within-create.js';
import { enforceQuota, enforceTeamQuota } from '../limits/quota.js';
import { ADAPTERS, type WorkflowManifest } from '../manifest/types.js';
import { manifestTextOf } from '../manifest/stored.js';
import { checkContent, publishingRefused } from '../marketplace/content-check.js';
import { versionDigest, type VersionContent } from './digest.js';
import { cleanWorkflowInput, type WorkflowInput } from './input.js';
import { authoredColumns, findingsColumn, reload, versionFields } from './rows.js';
import type { Tx, WorkflowContext, WorkflowQuery } from './types.js';
import { INITIAL_VERSION } from './versioning.js';
import { managerOf, recordWorkflowEvent, teamIdOf } from './team-access.js';

/** How a workflow comes to be: created by its author (forks are written the same way, forks.ts). */

/**
 * With `teamId`, the workflow is the team's (docs/teams.md, "Team workflows"): made by one of its
 * owners or admins, who stays its author, and counted toward the team's quota.
 */
export async function createWorkflow(
  ctx: WorkflowContext,
  viewer: Viewer,
  input: WorkflowInput & { teamId?: string | null },
  query: WorkflowQuery = {},
) {
  const clean = cleanWorkflowInput(input);
  const check = checkContent(clean);
  if (clean.visibility === 'public' && check.status === 'blocked') throw publishingRefused(check);
  const teamId = teamIdOf(input.teamId);
  const id = newId('wf');
  const now = ctx.clock.now();
  return ctx.db.prisma.$transaction(async (tx) => {
    if (teamId) {
      await managerOf(tx, viewer, teamId);
      await enforceTeamQuota(tx, teamId, 'workflows');
    } else await enforceQuota(tx, viewer.userId, 'workflows');
    await insertNewWorkflow(
      tx,
      {
        id,
        ownerId: viewer.userId,
        ...authoredColumns(clean),
        manifestText: manifestTextOf(clean.manifest),
        publishedAt: clean.visibility === 'public' ? now : null,
        checkFindings: findingsColumn(check),
        teamId,
        createdAt: now,
      },
      viewer.userId,
    );
    if (teamId) await recordWorkflowEvent(tx, now, viewer, { id, teamId }, 'workflow.created');
    await recordCreated(tx, `/workflows/${id}`);
    return reload(tx, id, query);
  });
}

/**
 * Writes a new workflow the one way every new workflow is written, created or forked: the row at
 * the initial version, that version in its history, and the workflow's entry in its owner's
 * library (owned, or forked from `sourceUserId`).
 */
export async function insertNewWorkflow(
  tx: Tx,
  row: Omit<Prisma.WorkflowUncheckedCreateInput, 'currentVersion' | 'updatedAt' | 'manifest'> & {
    id: string;
    ownerId: string;
    manifest: Prisma.InputJsonValue;
    createdAt: Date;
  },
  sourceUserId: string,
): Promise<void> {
  const { id, ownerId, manifest, manifestText, manifestYaml, checkFindings, createdAt } = row;
  const content: VersionContent = {
    name: row.name,
    description: row.description ?? '',
    category: row.category ?? '',
    tags: Array.isArray(row.tags) ? row.tags : [],
    manifest: manifest as unknown as WorkflowManifest,
  };
  const digest = versionDigest(id, ownerId, INITIAL_VERSION, content);
  await tx.workflow.create({ data: { ...row, currentVersion: INITIAL_VERSION, digest, updatedAt: createdAt } });
  await tx.workflowVersion.create({
    data: {
      id: newId('wfv'),
      workflowId: id,
      version: INITIAL_VERSION,
      ...versionFields(content),
      digest,
      manifest,
      manifestText,
      manifestYaml,
      checkFindings,
      createdAt,
    },
  });
  await addLibraryEntry(tx, {
    userId: ownerId,
    workflowId: id,
    sourceType: sourceUserId === ownerId ? 'owned' : 'forked',
    sourceUserId,
    version: INITIAL_VERSION,
    now: createdAt,
  });
}

/** Adds a workflow to a user's library with every adapter enabled unless told otherwise. */
export async function addLibraryEntry(
  tx: Tx,
  entry: {
    userId: string;
    workflowId: string;
    sourceType: 'owned' | 'forked' | 'subscribed';
    sourceUserId: string;
    version: string;
    now: Date;
    enabledAdapters?: string[];
    autoUpdate?: boolean;
  },
) {
  return tx.libraryEntry.create({
    data: {
      id: newId('lib'),
      userId: entry.userId,
      workflowId: entry.workflowId,
      sourceType: entry.sourceType,
      sourceUserId: entry.sourceUserId,
      isActive: true,
      enabledAdapters: entry.enabledAdapters ?? [...ADAPTERS],
      workflowVersion: entry.version,
      autoUpdate: entry.autoUpdate ?? true,
      addedAt: entry.now,
      updatedAt: entry.now,
    },
  });
}
