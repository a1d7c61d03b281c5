import type { Deployment } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { notFound } from '../errors.js';
import { epochCursorPosition, pageLimit, toPage, type Page } from '../pagination.js';
import { findVisible, teamRoleOf } from './access.js';
import { loadBundles, type BundledWorkflow } from './bundle.js';
import type { DeploymentContext } from './context.js';
import { billingOwnerOf } from './endpoint-target.js';
import { checkTeamId } from './input.js';
import { deploymentsOfOwner, deploymentsOfTeam } from './sql.js';
import type { DeploymentUsageSummary, ListDeploymentsInput, UsagePeriod, UsageReport, UsageSubject } from './types.js';

/** Reads of the deployments the viewer may see (access.ts): one, a page, their bundles and their usage. */

const CURSOR_KIND = 'deployments';

export async function getDeployment(ctx: DeploymentContext, viewer: Viewer, deploymentId: string): Promise<Deployment> {
  return (await findVisible(ctx, viewer, deploymentId)).row;
}

/** The viewer's personal deployments, or with `teamId` the team's, for any member of it (others: NOT_FOUND). */
export async function listDeployments(ctx: DeploymentContext, viewer: Viewer, input: ListDeploymentsInput = {}): Promise<Page<Deployment>> {
  const limit = pageLimit(input.limit);
  const teamId = checkTeamId(input.teamId);
  if (teamId && !(await teamRoleOf(ctx.db.prisma, teamId, viewer.userId))) throw notFound('team', teamId);
  const values: unknown[] = [teamId ?? viewer.userId];
  if (input.status) values.push(input.status);
  if (input.cursor) {
    const { at, id } = epochCursorPosition(input.cursor, CURSOR_KIND);
    values.push(at, id);
  }
  values.push(limit + 1);
  const statements = teamId ? deploymentsOfTeam : deploymentsOfOwner;
  const rows = await ctx.db.read<Deployment>(statements(Boolean(input.status), Boolean(input.cursor)), values);
  return toPage(
    rows,
    limit,
    CURSOR_KIND,
    (r) => [r.createdAt.getTime(), r.id],
    (r) => r,
  );
}

/** The URL of a deployment's tool endpoint. */
export function endpointOf(ctx: DeploymentContext, deploymentId: string): string {
  return `${ctx.config.publicBaseUrl}/mcp/${deploymentId}`;
}

/**
 * The bundles of deployments the viewer has read (so may see), in the order of the ids: one
 * statement for any number of them (the Deployment type's `workflows` field, batched over a page).
 */
export async function bundlesOf(ctx: DeploymentContext, deploymentIds: readonly string[]): Promise<BundledWorkflow[][]> {
  const bundles = await loadBundles(ctx.db, [...deploymentIds]);
  return deploymentIds.map((id) => bundles.get(id) ?? []);
}

/**
 * The usage summaries of deployments the viewer owns, in the order given: one statement for any
 * number of them (the Deployment type's `usage` field, batched over a page).
 */
export async function usageSummaries(ctx: DeploymentContext, rows: readonly UsageSubject[]): Promise<DeploymentUsageSummary[]> {
  const summaries = await ctx.usage.summaries(rows, ctx.clock.now());
  return rows.map((row) => summaries.get(row.id)!);
}

export async function getUsage(
  ctx: DeploymentContext,
  viewer: Viewer,
  input: { deploymentId: string; period?: UsagePeriod | null },
): Promise<UsageReport> {
  const { row } = await findVisible(ctx, viewer, input.deploymentId);
  const accountId = row.teamId === null ? row.ownerId : await billingOwnerOf(ctx, row.teamId);
  const period = input.period ?? 'month';
  return ctx.usage.report({ deploymentId: row.id, teamId: row.teamId, ownerId: accountId, period, now: ctx.clock.now() });
}
