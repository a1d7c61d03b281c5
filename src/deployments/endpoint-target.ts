import type { Viewer } from '../auth/viewer.js';
import type { ReadRows } from '../db/statement.js';
import { AppError, notFound } from '../errors.js';
import { adapterSet } from '../manifest/adapters.js';
import type { Adapter } from '../manifest/types.js';
import { renderable, resolveBundle, type BundledWorkflow, type EndpointRow } from './bundle.js';
import { maySee } from './access.js';
import type { DeploymentContext } from './context.js';
import { ENDPOINT_TARGET } from './sql.js';
import type { EndpointWorkflow } from './types.js';
import type { ConnectionCaller } from './usage.js';

/** What the tool endpoint asks of deployments: the target of a request, what it offers, who it admits. */

/** What the tool endpoint needs to answer one request. */
export interface EndpointTarget {
  deploymentId: string;
  ownerId: string;
  /** The team whose deployment it is; null for a personal one. */
  teamId: string | null;
  /**
   * Whose plan and counters the deployment's connections and anonymous calls count against: the
   * owner's, or for a team's deployment its billing owner's (docs/plans.md, "Teams and seats").
   */
  accountId: string;
  /** Whether the caller is the owner or, for a team's deployment, a member (not counted as anonymous). */
  callerIsHolder: boolean;
  name: string;
  description: string | null;
  allowAnonymous: boolean;
  enabledAdapters: Adapter[];
  /** Bundled workflows the owner may use, with their library settings (filter per adapter). */
  bundle: BundledWorkflow[];
}

/** Without a credential an unknown deployment answers as a private one: existence never leaks. */
function tokenRequired(): AppError {
  return new AppError(
    'UNAUTHORIZED',
    "this endpoint needs a credential unless its deployment allows anonymous use: connect with OAuth (see WWW-Authenticate), or send the owner's ID token or API key as Authorization: Bearer <token>",
    {},
    { 'WWW-Authenticate': 'Bearer' },
  );
}

/**
 * The deployment behind a tool-endpoint request (spec 5.3): unknown → NOT_FOUND; private
 * without a viewer → UNAUTHORIZED; another user's private one, or a team's the viewer is not a
 * member of → NOT_FOUND; inactive → FORBIDDEN. Read from the database on every request, membership
 * included, so deletion, deactivation or a member's removal cuts clients off at once.
 */
export async function loadDeploymentForEndpoint(
  ctx: DeploymentContext,
  deploymentId: string,
  viewer: Viewer | null,
): Promise<EndpointTarget> {
  const rows = await ctx.db.read<EndpointRow>(ENDPOINT_TARGET, [deploymentId]);
  const row = rows[0];
  if (!row) throw viewer ? notFound('deployment', deploymentId) : tokenRequired();
  if (!row.allowAnonymous && !viewer) throw tokenRequired();
  const callerIsHolder = viewer !== null && (await maySee(ctx.db.prisma, row, viewer.userId));
  if (!row.allowAnonymous && !callerIsHolder) throw notFound('deployment', deploymentId);
  if (row.status !== 'active') {
    throw new AppError(
      'FORBIDDEN',
      `deployment '${deploymentId}' is inactive; its owner can activate it with POST /v1/deployments/${deploymentId}/activate`,
      {
        reason: 'deployment_inactive',
        deploymentId,
      },
    );
  }
  const bundled = rows.filter((r): r is EndpointRow & { workflowId: string } => r.workflowId !== null);
  return {
    deploymentId: row.deploymentId,
    ownerId: row.ownerId,
    teamId: row.teamId,
    accountId: row.teamId === null ? row.ownerId : await billingOwnerOf(ctx, row.teamId),
    callerIsHolder,
    name: row.name,
    description: row.description,
    allowAnonymous: row.allowAnonymous,
    enabledAdapters: adapterSet(row.enabledAdapters),
    // Unavailable workflows never reach the endpoint: not as tools, prompts or resources.
    bundle: resolveBundle(bundled, row).filter((w) => w.available),
  };
}

/** The billing owner of a team: whose plan and counters its deployments use. */
export async function billingOwnerOf(ctx: DeploymentContext, teamId: string): Promise<string> {
  const team = await ctx.db.prisma.team.findUnique({ where: { id: teamId }, select: { billingOwnerId: true } });
  if (!team) throw notFound('deployment', teamId);
  return team.billingOwnerId;
}

/** The workflows a connection on `adapter` is offered, with their manifests, in deployment order. */
export function renderableFor(ctx: DeploymentContext, target: EndpointTarget, adapter: Adapter): Promise<EndpointWorkflow[]> {
  const readRows: ReadRows = (statement, values) => ctx.db.read(statement, values);
  return renderable(target.bundle, adapter, ctx.manifests, readRows);
}

/** Admits one request of `caller` to the endpoint: counts its connection if new, or refuses it over the quota. */
export function admitConnection(
  ctx: DeploymentContext,
  target: EndpointTarget,
  adapter: Adapter,
  caller: ConnectionCaller,
): Promise<boolean> {
  return ctx.usage.admitConnection({ deploymentId: target.deploymentId, ownerId: target.accountId, adapter, caller, at: ctx.clock.now() });
}
