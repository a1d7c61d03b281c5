import type { Prisma, Workflow } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { afterPosition, newestFirstOrderBy, type Position } from '../db/keyset.js';
import { membershipOf } from '../teams/roles.js';
import { notFound } from '../errors.js';
import { exportManifest as renderManifest, type ExportFormat } from '../manifest/export.js';
import { writtenManifest } from '../manifest/stored.js';
import { pageLimit, timeCursorOf, timeCursorPosition, toPage, type Page } from '../pagination.js';
import { canRead, findReadable } from './access.js';
import { NO_TEAMS, teamRolesFor } from './team-access.js';
import { versionDigest } from './digest.js';
import { provenanceOf } from './provenance.js';
import { WORKFLOW_BY_ID, workflowsOfOwner, workflowSummariesOfOwner } from './sql.js';
import type { ListWorkflowsInput, WorkflowContext, WorkflowQuery } from './types.js';

/** Reads of workflows: one, several, a page of the viewer's own, and the exports of one. */

/** Whether plugin-prisma's query for the items includes relations (anything beyond the row's own columns). */
function asksForRelations(query: WorkflowQuery): boolean {
  if (query.include && Object.keys(query.include).length > 0) return true;
  return Boolean(query.select && Object.values(query.select).some((v) => typeof v === 'object'));
}

/**
 * A page of the viewer's workflows. Without nested relations asked for (REST, the dashboard)
 * it is one statement of our own; GraphQL asking for relations of the items (versions) gets
 * Prisma's nested read, so they still come in one query per level.
 */
export async function listWorkflows(
  ctx: WorkflowContext,
  viewer: Viewer,
  input: ListWorkflowsInput,
  query: WorkflowQuery = {},
): Promise<Page<Workflow>> {
  const limit = pageLimit(input.limit);
  const after = input.cursor ? timeCursorPosition(input.cursor, 'workflows') : null;
  let rows: Workflow[];
  if (input.teamId != null) {
    // A team's workflows, for its members (an outsider learns nothing of the team).
    await membershipOf(ctx.db.prisma, input.teamId, viewer.userId);
    rows = await teamPage(ctx, input.teamId, input, after, limit, query);
  } else if (asksForRelations(query)) {
    const where: Prisma.WorkflowWhereInput = {
      ownerId: viewer.userId,
      teamId: null,
      ...(input.visibility ? { visibility: input.visibility } : {}),
    };
    if (after) where.OR = afterPosition('createdAt', after);
    rows = (await ctx.db.prisma.workflow.findMany({
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
    rows = await ctx.db.read<Workflow>(statements(Boolean(input.visibility), Boolean(after)), values);
  }
  return toPage(
    rows,
    limit,
    'workflows',
    (w) => timeCursorOf(w.createdAt, w.id),
    (w) => w,
  );
}

/** A page of a team's workflows, whoever wrote them. */
async function teamPage(
  ctx: WorkflowContext,
  teamId: string,
  input: ListWorkflowsInput,
  after: Position | null,
  limit: number,
  query: WorkflowQuery,
): Promise<Workflow[]> {
  const where: Prisma.WorkflowWhereInput = { teamId, ...(input.visibility ? { visibility: input.visibility } : {}) };
  if (after) where.OR = afterPosition('createdAt', after);
  return (await ctx.db.prisma.workflow.findMany({
    where,
    orderBy: newestFirstOrderBy('createdAt'),
    take: limit + 1,
    ...query,
  })) as Workflow[];
}

/** One statement, sent without Prisma (the hottest read of the service), checked after reading. */
export async function getWorkflow(ctx: WorkflowContext, viewer: Viewer, workflowId: string): Promise<Workflow> {
  const [row] = await ctx.db.read<Workflow>(WORKFLOW_BY_ID, [workflowId]);
  if (!row || !canRead(viewer, row, await teamRolesFor(ctx.db.prisma, viewer.userId, [row]))) throw notFound('workflow', workflowId);
  return row;
}

/** Each of several workflows in one statement, where `viewer` may read it; otherwise null (deleted, or now private). */
export async function readableByIds(
  ctx: WorkflowContext,
  viewer: Viewer | null,
  workflowIds: readonly string[],
): Promise<(Workflow | null)[]> {
  const rows = await ctx.db.prisma.workflow.findMany({ where: { id: { in: [...workflowIds] } } });
  const byId = new Map(rows.map((w) => [w.id, w]));
  const roles = viewer ? await teamRolesFor(ctx.db.prisma, viewer.userId, rows) : NO_TEAMS;
  return workflowIds.map((id) => {
    const w = byId.get(id);
    return w && viewer && canRead(viewer, w, roles) ? w : null;
  });
}

export async function exportWorkflowManifest(
  ctx: WorkflowContext,
  viewer: Viewer,
  workflowId: string,
  format: Exclude<ExportFormat, 'skill'>,
) {
  const workflow = await findReadable(ctx, viewer, workflowId);
  // YAML sent as YAML comes back as it was written: comments, flow lists and all.
  if (format === 'yaml' && typeof workflow.manifestYaml === 'string')
    return { body: workflow.manifestYaml, contentType: 'application/yaml' };
  return renderManifest(writtenManifest(workflow), format);
}

/**
 * What a rendering (a skill) is made from: the readable workflow's current version (manifest,
 * name, description) with its provenance, third-party unless the viewer wrote it.
 */
export async function exportSource(ctx: WorkflowContext, viewer: Viewer, workflowId: string) {
  const workflow = await findReadable(ctx, viewer, workflowId);
  const author = await ctx.db.prisma.user.findUnique({ where: { id: workflow.ownerId }, select: { id: true, displayName: true } });
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
