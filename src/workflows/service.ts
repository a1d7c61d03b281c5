import { Prisma, type Workflow, type WorkflowVersion } from '@prisma/client';

/** The rows this service answers with, as faces name them (a face does not import Prisma). */
export type { Workflow, WorkflowVersion };
import { newId } from '../clock.js';
import { isUniqueViolation } from '../db/errors.js';
import { AppError, notFound, validationError, type FieldProblem } from '../errors.js';
import type { Viewer } from '../auth/viewer.js';
import { ADAPTERS, type WorkflowManifest } from '../manifest/types.js';
import { exportManifest as renderManifest, type ExportFormat } from '../manifest/export.js';
import { manifestTextOf, writtenManifest } from '../manifest/stored.js';
import { afterPosition, newestFirstOrderBy } from '../db/keyset.js';
import { pageLimit, timeCursorOf, timeCursorPosition, toPage, type Page } from '../pagination.js';
import { enforceQuota, enforceVersionQuota } from '../limits/quota.js';
import type { ServiceDeps } from '../service-deps.js';
import { cleanName, NAME_MAX, truncateCharacters } from '../text.js';
import { cleanWorkflowInput, mergeWorkflowUpdate, type Visibility, type WorkflowInput, type WorkflowUpdateInput } from './input.js';
import { INITIAL_VERSION, nextVersion } from './versioning.js';
import { checkRevision } from '../revisions.js';
import { checkContent, publishingRefused, type CheckResult } from '../marketplace/content-check.js';
import { versionDigest, type VersionContent } from './digest.js';
import { provenanceOf } from './provenance.js';
import {
  completeVersionsWithoutDigest,
  copyCurrentDigests,
  lockWorkflowForUpdate,
  newestVersionIds,
  versionsWithoutDigest,
  WORKFLOW_BY_ID,
  workflowsOfOwner,
  workflowSummariesOfOwner,
} from './sql.js';
import { refuseIfTakenDown, suspensionReason } from '../moderation/service.js';
import { recordCreated } from '../idempotency/within-create.js';

/** Prisma's include/select for the nested reads GraphQL asks for (plugin-prisma's `query`). */
export type WorkflowQuery = { include?: Prisma.WorkflowInclude; select?: Prisma.WorkflowSelect; omit?: Prisma.WorkflowOmit };

/** The columns a page of summaries leaves out (Prisma's `omit`): the manifest, kept twice. */
export const WITHOUT_MANIFEST = { manifest: true, manifestText: true, manifestYaml: true } as const satisfies Prisma.WorkflowOmit;

export interface ListWorkflowsInput {
  limit?: number | null;
  cursor?: string | null;
  visibility?: Visibility | null;
}

type Tx = Prisma.TransactionClient;

export interface VersionPageInput {
  limit?: number | null;
  cursor?: string | null;
}

/** Whether plugin-prisma's query for the items includes relations (anything beyond the row's own columns). */
function asksForRelations(query: WorkflowQuery): boolean {
  if (query.include && Object.keys(query.include).length > 0) return true;
  return Boolean(query.select && Object.values(query.select).some((v) => typeof v === 'object'));
}

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

export function createWorkflowService({ db, clock }: ServiceDeps) {
  const prisma = db.prisma;

  async function findReadable(viewer: Viewer, workflowId: string, client: Tx | typeof prisma = prisma): Promise<Workflow> {
    const workflow = await client.workflow.findUnique({ where: { id: workflowId } });
    if (!workflow || !canRead(viewer, workflow)) throw notFound('workflow', workflowId);
    return workflow;
  }

  /** The workflow for a change by its owner: not visible → 404, visible but someone else's → 403. */
  async function findOwned(viewer: Viewer, workflowId: string, client: Tx | typeof prisma = prisma): Promise<Workflow> {
    const workflow = await findReadable(viewer, workflowId, client);
    if (workflow.ownerId !== viewer.userId)
      throw new AppError('FORBIDDEN', 'only the owner of this workflow may change or delete it', { workflowId });
    return workflow;
  }

  /**
   * The row as a write left it, read inside the write's transaction: read after the commit, the
   * answer could describe another client's write made in between.
   */
  async function reload(tx: Tx, workflowId: string, query: WorkflowQuery) {
    return tx.workflow.findUniqueOrThrow({ where: { id: workflowId }, ...query });
  }

  /**
   * A page of the viewer's workflows. Without nested relations asked for (REST, the dashboard)
   * it is one statement of our own; GraphQL asking for relations of the items (versions) gets
   * Prisma's nested read, so they still come in one query per level.
   */
  async function listWorkflows(viewer: Viewer, input: ListWorkflowsInput, query: WorkflowQuery = {}): Promise<Page<Workflow>> {
    const limit = pageLimit(input.limit);
    const after = input.cursor ? timeCursorPosition(input.cursor, 'workflows') : null;
    let rows: Workflow[];
    if (asksForRelations(query)) {
      const where: Prisma.WorkflowWhereInput = { ownerId: viewer.userId, ...(input.visibility ? { visibility: input.visibility } : {}) };
      if (after) where.OR = afterPosition('createdAt', after);
      rows = (await prisma.workflow.findMany({
        where,
        orderBy: newestFirstOrderBy('createdAt'),
        take: limit + 1,
        ...query,
      })) as Workflow[];
    } else {
      const values: unknown[] = [viewer.userId];
      if (input.visibility) values.push(input.visibility);
      if (after) values.push(after.at, after.id);
      values.push(limit + 1);
      // Without the manifest when the query omits it, as Prisma's would be (the rows are Workflows
      // less those two fields; no field of a page of summaries reads them).
      const statements = query.omit?.manifest ? workflowSummariesOfOwner : workflowsOfOwner;
      rows = await db.read<Workflow>(statements(Boolean(input.visibility), Boolean(after)), values);
    }
    return toPage(
      rows,
      limit,
      'workflows',
      (w) => timeCursorOf(w.createdAt, w.id),
      (w) => w,
    );
  }

  /** One statement, sent without Prisma (the hottest read of the service), checked after reading. */
  async function getWorkflow(viewer: Viewer, workflowId: string): Promise<Workflow> {
    const [row] = await db.read<Workflow>(WORKFLOW_BY_ID, [workflowId]);
    if (!row || !canRead(viewer, row)) throw notFound('workflow', workflowId);
    return row;
  }

  async function createWorkflow(viewer: Viewer, input: WorkflowInput, query: WorkflowQuery = {}) {
    const clean = cleanWorkflowInput(input);
    const check = checkContent(clean);
    if (clean.visibility === 'public' && check.status === 'blocked') throw publishingRefused(check);
    const id = newId('wf');
    const now = clock.now();
    return prisma.$transaction(async (tx) => {
      await enforceQuota(tx, viewer.userId, 'workflows');
      await insertNewWorkflow(
        tx,
        {
          id,
          ownerId: viewer.userId,
          name: clean.name,
          description: clean.description,
          visibility: clean.visibility,
          category: clean.category,
          tags: clean.tags,
          allowForks: clean.allowForks,
          manifest: clean.manifest as unknown as Prisma.InputJsonValue,
          manifestText: manifestTextOf(clean.manifest),
          manifestYaml: clean.manifestYaml,
          publishedAt: clean.visibility === 'public' ? now : null,
          checkFindings: findingsColumn(check),
          createdAt: now,
        },
        viewer.userId,
      );
      await recordCreated(tx, `/workflows/${id}`);
      return reload(tx, id, query);
    });
  }

  /**
   * `expectedRevision` (REST: If-Match) makes the update conditional: when the workflow has been
   * written since the client read that revision, nothing changes and the answer is 412.
   */
  async function updateWorkflow(
    viewer: Viewer,
    workflowId: string,
    input: WorkflowUpdateInput,
    query: WorkflowQuery = {},
    precondition: { expectedRevision?: number | null } = {},
  ) {
    const now = clock.now();
    return prisma.$transaction(async (tx) => {
      await tx.$queryRaw(lockWorkflowForUpdate(workflowId));
      const current = await findOwned(viewer, workflowId, tx);
      checkRevision('workflow', workflowId, current.revision, precondition.expectedRevision);
      const clean = cleanWorkflowInput(mergeWorkflowUpdate(input, current));
      // A public workflow never holds content the publishing check blocks: made public or changed.
      const check = checkContent(clean);
      if (clean.visibility === 'public' && check.status === 'blocked') throw publishingRefused(check);
      // Versions compare content, not key order (jsonb's or the user's).
      const version = nextVersion(current.currentVersion, { ...current, manifest: current.manifest as unknown as WorkflowManifest }, clean);
      const digest = version ? versionDigest(workflowId, current.ownerId, version, clean) : undefined;
      if (version) await enforceVersionQuota(tx, current.ownerId, workflowId);
      const text = manifestTextOf(clean.manifest);
      const becomesPublic = clean.visibility === 'public' && current.visibility !== 'public';
      await tx.workflow.update({
        where: { id: workflowId },
        data: {
          name: clean.name,
          description: clean.description,
          visibility: clean.visibility,
          category: clean.category,
          tags: clean.tags,
          allowForks: clean.allowForks,
          manifest: clean.manifest as unknown as Prisma.InputJsonValue,
          manifestText: text,
          manifestYaml: clean.manifestYaml,
          updatedAt: now,
          revision: { increment: 1 },
          checkFindings: findingsColumn(check),
          ...(version ? { currentVersion: version, digest } : {}),
          ...(becomesPublic ? { publishedAt: now } : {}),
          ...(clean.visibility === 'private' && current.visibility === 'public' ? { publishedAt: null } : {}),
        },
      });
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
      // Library entries that follow the source move to its current version; the others stay. While
      // the workflow is private only the owner's entry follows: subscribers keep their entries
      // (shown unavailable) but learn nothing of versions made meanwhile, and catch up when it is
      // public again. A version the publishing check found anything in is held: subscribers' entries
      // stay where they are until each subscriber accepts it (library service, acceptUpdate).
      if (version || becomesPublic) {
        const held = check.findings.length > 0;
        await tx.libraryEntry.updateMany({
          where: { workflowId, autoUpdate: true, ...(clean.visibility === 'public' && !held ? {} : { userId: current.ownerId }) },
          data: { workflowVersion: version ?? current.currentVersion, updatedAt: now },
        });
      }
      return reload(tx, workflowId, query);
    });
  }

  async function deleteWorkflow(viewer: Viewer, workflowId: string) {
    await prisma.$transaction(async (tx) => {
      await findOwned(viewer, workflowId, tx);
      // Versions, library entries (everyone's), reviews and deployment bundles go with it.
      await tx.workflow.delete({ where: { id: workflowId } });
    });
    return { workflowId, deleted: true as const };
  }

  async function forkWorkflow(viewer: Viewer, workflowId: string, input: { name?: string | null }, query: WorkflowQuery = {}) {
    const problems: FieldProblem[] = [];
    const requested = input.name === undefined || input.name === null ? null : cleanName(input.name, problems);
    if (problems.length) throw validationError(problems);
    const id = newId('wf');
    const now = clock.now();
    try {
      return await prisma.$transaction(async (tx) => {
        const original = await findReadable(viewer, workflowId, tx);
        if (original.ownerId === viewer.userId)
          throw new AppError('FORBIDDEN', 'you own this workflow: edit it or create a new one instead of forking it', { workflowId });
        if (original.visibility !== 'public') throw notFound('workflow', workflowId);
        refuseIfTakenDown(original, 'forked');
        if (!original.allowForks) throw new AppError('FORBIDDEN', 'the owner of this workflow has disabled forking', { workflowId });
        // Once ever per user (spec 2.9): the record outlives the fork, so deleting the fork does not
        // allow a second one, nor count the same user twice in stats.forks.
        const already = await tx.workflowFork.findUnique({ where: { workflowId_userId: { workflowId, userId: viewer.userId } } });
        if (already) {
          const fork = await tx.workflow.findFirst({
            where: { ownerId: viewer.userId, forkedFromWorkflowId: workflowId },
            select: { id: true },
          });
          throw forkedTwice(workflowId, fork?.id ?? null);
        }
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
  async function viewerFork(viewer: Viewer, workflowId: string): Promise<{ forkedAt: Date; forkId: string | null } | null> {
    const record = await prisma.workflowFork.findUnique({ where: { workflowId_userId: { workflowId, userId: viewer.userId } } });
    if (!record) return null;
    const fork = await prisma.workflow.findFirst({
      where: { ownerId: viewer.userId, forkedFromWorkflowId: workflowId },
      select: { id: true },
    });
    return { forkedAt: record.createdAt, forkId: fork?.id ?? null };
  }

  async function listVersions(viewer: Viewer, workflowId: string, input: VersionPageInput) {
    await findReadable(viewer, workflowId);
    return versionPage(workflowId, input);
  }

  /** The same for a workflow row already read (a nested GraphQL field): the read check is made on the row. */
  async function listVersionsOf(viewer: Viewer, workflow: Pick<Workflow, 'id' | 'ownerId' | 'visibility'>, input: VersionPageInput) {
    if (!canRead(viewer, workflow)) throw notFound('workflow', workflow.id);
    return versionPage(workflow.id, input);
  }

  /**
   * The first page of versions of each of several workflows the caller has already checked, in two
   * statements whatever their number (a dashboard list asking for each workflow's versions): the
   * ids of each workflow's newest `limit + 1` versions, then those rows.
   */
  async function firstVersionPages(workflowIds: readonly string[], input: { limit?: number | null }): Promise<Page<WorkflowVersion>[]> {
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

  async function versionPage(workflowId: string, input: VersionPageInput) {
    const limit = pageLimit(input.limit);
    const where: Prisma.WorkflowVersionWhereInput = { workflowId };
    if (input.cursor) where.OR = afterPosition('createdAt', timeCursorPosition(input.cursor, `versions:${workflowId}`));
    const rows = await prisma.workflowVersion.findMany({ where, orderBy: newestFirstOrderBy('createdAt'), take: limit + 1 });
    return toPage(
      rows,
      limit,
      `versions:${workflowId}`,
      (v) => timeCursorOf(v.createdAt, v.id),
      (v) => v,
    );
  }

  async function getVersion(viewer: Viewer, workflowId: string, version: string) {
    await findReadable(viewer, workflowId);
    const row = await prisma.workflowVersion.findUnique({ where: { workflowId_version: { workflowId, version } } });
    if (!row) throw new AppError('NOT_FOUND', `workflow '${workflowId}' has no version '${version}'`, { workflowId, version });
    return row;
  }

  async function exportWorkflowManifest(viewer: Viewer, workflowId: string, format: Exclude<ExportFormat, 'skill'>) {
    const workflow = await findReadable(viewer, workflowId);
    // YAML sent as YAML comes back as it was written: comments, flow lists and all.
    if (format === 'yaml' && typeof workflow.manifestYaml === 'string')
      return { body: workflow.manifestYaml, contentType: 'application/yaml' };
    return renderManifest(writtenManifest(workflow), format);
  }

  /**
   * What a rendering (a skill) is made from: the readable workflow's current version (manifest,
   * name, description) with its provenance, third-party unless the viewer wrote it.
   */
  async function exportSource(viewer: Viewer, workflowId: string) {
    const workflow = await findReadable(viewer, workflowId);
    const author = await prisma.user.findUnique({ where: { id: workflow.ownerId }, select: { id: true, displayName: true } });
    const manifest = writtenManifest(workflow);
    const digest = workflow.digest ?? versionDigest(workflow.id, workflow.ownerId, workflow.currentVersion, { ...workflow, manifest });
    return {
      workflowId: workflow.id,
      name: workflow.name,
      description: workflow.description,
      version: workflow.currentVersion,
      manifest,
      provenance: provenanceOf(author ?? { id: workflow.ownerId, displayName: null }, digest, workflow.ownerId !== viewer.userId),
    };
  }

  /**
   * The publishing check on what the workflow would be after `input` (the fields of an update,
   * each optional), without storing anything: the author's dry run before publishing.
   */
  async function checkWorkflow(viewer: Viewer, workflowId: string, input: WorkflowUpdateInput): Promise<CheckResult> {
    const current = await findOwned(viewer, workflowId);
    return checkContent(cleanWorkflowInput(mergeWorkflowUpdate(input, current)));
  }

  /** Each of several workflows in one statement, where `viewer` may read it; otherwise null (deleted, or now private). */
  async function readableByIds(viewer: Viewer | null, workflowIds: readonly string[]): Promise<(Workflow | null)[]> {
    const rows = await prisma.workflow.findMany({ where: { id: { in: [...workflowIds] } } });
    const byId = new Map(rows.map((w) => [w.id, w]));
    return workflowIds.map((id) => {
      const w = byId.get(id);
      return w && viewer && canRead(viewer, w) ? w : null;
    });
  }

  /**
   * Gives every version row without a digest its digest, and every workflow its current version's:
   * rows recorded before digests existed, or written by something other than the service. Run at
   * start, before serving; idempotent (it reads only rows whose digest is null, and a digest is a
   * function of the row, so two instances starting together write the same value). Returns how
   * many versions it filled.
   */
  async function fillMissingDigests(): Promise<number> {
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

  return {
    fillMissingDigests,
    findReadable,
    readableByIds,
    listWorkflows,
    getWorkflow,
    createWorkflow,
    updateWorkflow,
    deleteWorkflow,
    forkWorkflow,
    viewerFork,
    listVersions,
    listVersionsOf,
    firstVersionPages,
    getVersion,
    exportWorkflowManifest,
    exportSource,
    checkWorkflow,
  };
}

/** Findings as stored in a check_findings column. */
function findingsColumn(check: CheckResult): Prisma.InputJsonValue {
  return check.findings as unknown as Prisma.InputJsonValue;
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

/** The fields of a version row that describe the workflow (the manifest is written beside them). */
function versionFields(content: VersionContent) {
  return { name: content.name, description: content.description, category: content.category, tags: [...content.tags] };
}

/** Adds a workflow to a user's library with every adapter enabled; used when creating and forking. */
/**
 * Writes a new workflow the one way every new workflow is written, created or forked: the row at
 * the initial version, that version in its history, and the workflow's entry in its owner's
 * library (owned, or forked from `sourceUserId`).
 */
async function insertNewWorkflow(
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
