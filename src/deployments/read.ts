import type { Deployment } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { notFound } from '../errors.js';
import { epochCursorPosition, pageLimit, toPage, type Page } from '../pagination.js';
import { findOwned, ownedBy } from './access.js';
import { loadBundles, type BundledWorkflow } from './bundle.js';
import type { DeploymentContext } from './context.js';
import { deploymentsOfOwner } from './sql.js';
import type { DeploymentUsageSummary, ListDeploymentsInput, UsagePeriod, UsageReport, UsageSubject } from './types.js';

/** Reads of the viewer's deployments: one, a page, their bundles and their usage. */

const CURSOR_KIND = 'deployments';

export function getDeployment(ctx: DeploymentContext, viewer: Viewer, deploymentId: string): Promise<Deployment> {
  return findOwned(ctx, viewer, deploymentId);
}

export async function listDeployments(ctx: DeploymentContext, viewer: Viewer, input: ListDeploymentsInput = {}): Promise<Page<Deployment>> {
  const limit = pageLimit(input.limit);
  const values: unknown[] = [viewer.userId];
  if (input.status) values.push(input.status);
  if (input.cursor) {
    const { at, id } = epochCursorPosition(input.cursor, CURSOR_KIND);
    values.push(at, id);
  }
  values.push(limit + 1);
  const rows = await ctx.db.read<Deployment>(deploymentsOfOwner(Boolean(input.status), Boolean(input.cursor)), values);
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
 * The bundles of the viewer's deployments, in the order of the ids: one statement for any number
 * of them (the Deployment type's `workflows` field, batched over a page).
 */
export async function bundlesOf(ctx: DeploymentContext, viewer: Viewer, deploymentIds: readonly string[]): Promise<BundledWorkflow[][]> {
  const bundles = await loadBundles(ctx.db, [...deploymentIds], viewer.userId);
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
  const row = await ctx.db.prisma.deployment.findFirst({ where: ownedBy(viewer, input.deploymentId), select: { id: true } });
  if (!row) throw notFound('deployment', input.deploymentId);
  return ctx.usage.report({ deploymentId: row.id, ownerId: viewer.userId, period: input.period ?? 'month', now: ctx.clock.now() });
}
