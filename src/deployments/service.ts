import type { Deployment, Prisma } from '@prisma/client';
import { newId } from '../clock.js';
import { AppError, notFound, validationError, type FieldProblem } from '../errors.js';
import { checkLength, cleanName } from '../text.js';
import type { Viewer } from '../auth/viewer.js';
import { adapterSet } from '../manifest/adapters.js';
import { ADAPTERS, type Adapter } from '../manifest/types.js';
import { epochCursorPosition, pageLimit, toPage, type Page } from '../pagination.js';
import { enforceQuota } from '../limits/quota.js';
import type { ReadRows } from '../db/statement.js';
import type { ServiceDeps } from '../service-deps.js';
import { loadBundles, ManifestCache, renderable, resolveBundle, type BundledWorkflow, type EndpointRow } from './bundle.js';
import {
  DESCRIPTION_MAX,
  type EndpointWorkflow,
  WORKFLOWS_MAX,
  type CreateDeploymentInput,
  type DeploymentStatus,
  type DeploymentUsageSummary,
  type ListDeploymentsInput,
  type UpdateDeploymentInput,
  type UsagePeriod,
  type UsageReport,
  type UsageSubject,
} from './types.js';
import { deploymentsOfOwner, ENDPOINT_TARGET } from './sql.js';
import { checkRevision } from '../revisions.js';
import { createUsageStore, type ConnectionCaller } from './usage.js';
import { recordCreated } from '../idempotency/within-create.js';

/**
 * Deployments (spec 2.4, 3, 4.2): every rule and permission check. Another user's deployment
 * is NOT_FOUND, never FORBIDDEN, so its existence does not leak.
 */

const CURSOR_KIND = 'deployments';

/** What the tool endpoint needs to answer one request. */
export interface EndpointTarget {
  deploymentId: string;
  ownerId: string;
  name: string;
  description: string | null;
  allowAnonymous: boolean;
  enabledAdapters: Adapter[];
  /** Bundled workflows the owner may use, with their library settings (filter per adapter). */
  bundle: BundledWorkflow[];
}

function checkName(raw: string): string {
  const problems: FieldProblem[] = [];
  const name = cleanName(raw, problems);
  if (problems.length) throw validationError(problems);
  return name;
}

function checkDescription(description: string | null | undefined): string | null | undefined {
  if (description === null || description === undefined) return description;
  const problems: FieldProblem[] = [];
  checkLength(description, DESCRIPTION_MAX, 'description', problems);
  if (problems.length) throw validationError(problems);
  return description;
}

function notNull(field: string): AppError {
  return new AppError('VALIDATION_ERROR', `${field} cannot be null; leave it out to keep the current value`, {
    fields: [{ field, message: `${field} cannot be null` }],
  });
}

export function createDeploymentService({ db, config, clock }: ServiceDeps) {
  const prisma = db.prisma;
  /** Manifests the tool endpoint has read, by workflow and version (immutable, so never stale). */
  const manifests = new ManifestCache();
  const readRows: ReadRows = (statement, values) => db.read(statement, values);
  const usage = createUsageStore(db);

  const endpointOf = (deploymentId: string) => `${config.publicBaseUrl}/mcp/${deploymentId}`;

  /**
   * Each id must name a workflow the viewer owns, or a public one they subscribe to. Unknown ids
   * and other users' private workflows get the same answer, so neither leaks.
   */
  async function checkWorkflowIds(viewer: Viewer, workflowIds: readonly string[]): Promise<string[]> {
    const fail = (message: string, extra: Record<string, unknown> = {}) => validationError([{ field: 'workflowIds', message }], extra);
    if (workflowIds.length === 0) throw fail('workflowIds must name at least one workflow');
    if (workflowIds.length > WORKFLOWS_MAX) throw fail(`workflowIds may name at most ${WORKFLOWS_MAX} workflows`);
    const duplicates = [...new Set(workflowIds.filter((id, i) => workflowIds.indexOf(id) !== i))];
    if (duplicates.length)
      throw fail(`workflowIds names a workflow more than once: ${duplicates.join(', ')}`, { duplicateIds: duplicates });
    const usable = await prisma.workflow.findMany({
      where: {
        id: { in: [...workflowIds] },
        // A subscription whose author made it private may stay named (it is kept, unavailable), so a
        // client can send back the list it read; it was public when the viewer subscribed.
        OR: [{ ownerId: viewer.userId }, { libraryEntries: { some: { userId: viewer.userId, sourceType: 'subscribed' } } }],
      },
      select: { id: true },
    });
    const ok = new Set(usable.map((w) => w.id));
    const invalid = workflowIds.filter((id) => !ok.has(id));
    if (invalid.length) {
      throw fail(`workflowIds must name workflows you own or have subscribed to in your library; these are not: ${invalid.join(', ')}`, {
        invalidIds: invalid,
      });
    }
    return [...workflowIds];
  }

  /**
   * The usage summaries of deployments the viewer owns, in the order given: one statement for any
   * number of them (the Deployment type's `usage` field, batched over a page).
   */
  async function usageSummaries(rows: readonly UsageSubject[]): Promise<DeploymentUsageSummary[]> {
    const summaries = await usage.summaries(rows, clock.now());
    return rows.map((row) => summaries.get(row.id)!);
  }

  /**
   * The bundles of the viewer's deployments, in the order of the ids: one statement for any number
   * of them (the Deployment type's `workflows` field, batched over a page).
   */
  async function bundlesOf(viewer: Viewer, deploymentIds: readonly string[]): Promise<BundledWorkflow[][]> {
    const bundles = await loadBundles(db, [...deploymentIds], viewer.userId);
    return deploymentIds.map((id) => bundles.get(id) ?? []);
  }

  async function findOwned(viewer: Viewer, deploymentId: string): Promise<Deployment> {
    const row = await prisma.deployment.findFirst({ where: { id: deploymentId, ownerId: viewer.userId } });
    if (!row) throw notFound('deployment', deploymentId);
    return row;
  }

  function getDeployment(viewer: Viewer, deploymentId: string): Promise<Deployment> {
    return findOwned(viewer, deploymentId);
  }

  async function listDeployments(viewer: Viewer, input: ListDeploymentsInput = {}): Promise<Page<Deployment>> {
    const limit = pageLimit(input.limit);
    const values: unknown[] = [viewer.userId];
    if (input.status) values.push(input.status);
    if (input.cursor) {
      const { at, id } = epochCursorPosition(input.cursor, CURSOR_KIND);
      values.push(at, id);
    }
    values.push(limit + 1);
    const rows = await db.read<Deployment>(deploymentsOfOwner(Boolean(input.status), Boolean(input.cursor)), values);
    return toPage(
      rows,
      limit,
      CURSOR_KIND,
      (r) => [r.createdAt.getTime(), r.id],
      (r) => r,
    );
  }

  async function createDeployment(viewer: Viewer, input: CreateDeploymentInput): Promise<Deployment> {
    const name = checkName(input.name);
    const description = checkDescription(input.description) ?? null;
    const enabledAdapters =
      input.enabledAdapters === undefined || input.enabledAdapters === null ? [...ADAPTERS] : adapterSet(input.enabledAdapters);
    const workflowIds = await checkWorkflowIds(viewer, input.workflowIds);
    const now = clock.now();
    const row = await prisma.$transaction(async (tx) => {
      await enforceQuota(tx, viewer.userId, 'deployments');
      const id = newId('dep');
      await recordCreated(tx, `/deployments/${id}`);
      return tx.deployment.create({
        data: {
          id,
          ownerId: viewer.userId,
          name,
          description,
          enabledAdapters,
          status: 'active',
          allowAnonymous: input.allowAnonymous ?? false,
          createdAt: now,
          updatedAt: now,
          workflows: { create: workflowIds.map((workflowId, position) => ({ workflowId, position })) },
        },
      });
    });
    return row;
  }

  /**
   * `expectedRevision` (REST: If-Match) makes the update conditional: when the deployment has been
   * written since the client read that revision, nothing changes and the answer is 412.
   */
  async function updateDeployment(
    viewer: Viewer,
    input: UpdateDeploymentInput,
    precondition: { expectedRevision?: number | null } = {},
  ): Promise<Deployment> {
    const current = await findOwned(viewer, input.deploymentId);
    checkRevision('deployment', current.id, current.revision, precondition.expectedRevision);
    if (input.name === null) throw notNull('name');
    if (input.workflowIds === null) throw notNull('workflowIds');
    if (input.enabledAdapters === null) throw notNull('enabledAdapters');
    if (input.allowAnonymous === null) throw notNull('allowAnonymous');
    const data: Prisma.DeploymentUpdateInput = {};
    if (input.name !== undefined) data.name = checkName(input.name);
    if (input.description !== undefined) data.description = checkDescription(input.description);
    if (input.enabledAdapters !== undefined) data.enabledAdapters = adapterSet(input.enabledAdapters);
    if (input.allowAnonymous !== undefined) data.allowAnonymous = input.allowAnonymous;
    const workflowIds = input.workflowIds === undefined ? undefined : await checkWorkflowIds(viewer, input.workflowIds);
    if (Object.keys(data).length === 0 && workflowIds === undefined) return current;
    data.updatedAt = clock.now();
    if (workflowIds) {
      data.workflows = { deleteMany: {}, create: workflowIds.map((workflowId, position) => ({ workflowId, position })) };
    }
    return mutateOwned(viewer, current.id, data, precondition.expectedRevision);
  }

  /**
   * Applies an update to a deployment the viewer owns and answers the row as this write left it (the
   * update's own RETURNING, not a read after it). Every write counts a revision; with `expected`,
   * the write is made only at that revision, in the same statement. A concurrent delete makes it
   * NOT_FOUND, a concurrent write PRECONDITION_FAILED.
   */
  async function mutateOwned(
    viewer: Viewer,
    deploymentId: string,
    data: Prisma.DeploymentUpdateInput,
    expected?: number | null,
  ): Promise<Deployment> {
    try {
      return await prisma.deployment.update({
        where: { id: deploymentId, ownerId: viewer.userId, ...(typeof expected === 'number' ? { revision: expected } : {}) },
        data: { ...data, revision: { increment: 1 } },
      });
    } catch (error) {
      if ((error as { code?: string }).code !== 'P2025') throw error;
      const now = await prisma.deployment.findFirst({ where: { id: deploymentId, ownerId: viewer.userId }, select: { revision: true } });
      if (now && typeof expected === 'number') checkRevision('deployment', deploymentId, now.revision, expected);
      throw notFound('deployment', deploymentId);
    }
  }

  async function setAdapter(
    viewer: Viewer,
    input: { deploymentId: string; adapter: string; enabled: boolean },
  ): Promise<{ deploymentId: string; enabledAdapters: Adapter[] }> {
    const [adapter] = adapterSet([input.adapter], 'adapter');
    const current = await findOwned(viewer, input.deploymentId);
    const enabled = new Set(adapterSet(current.enabledAdapters));
    if (input.enabled) enabled.add(adapter!);
    else enabled.delete(adapter!);
    const enabledAdapters = ADAPTERS.filter((a) => enabled.has(a));
    if (enabledAdapters.length !== current.enabledAdapters.length) {
      await mutateOwned(viewer, current.id, { enabledAdapters, updatedAt: clock.now() });
    }
    return { deploymentId: current.id, enabledAdapters };
  }

  /** Spec 3: active <-> inactive. Asking for the state a deployment is already in changes nothing. */
  async function setStatus(viewer: Viewer, deploymentId: string, status: DeploymentStatus): Promise<Deployment> {
    const current = await findOwned(viewer, deploymentId);
    if (current.status === status) return current;
    return mutateOwned(viewer, current.id, { status, updatedAt: clock.now() });
  }

  async function deleteDeployment(viewer: Viewer, deploymentId: string): Promise<{ deploymentId: string; deleted: true }> {
    const { count } = await prisma.deployment.deleteMany({ where: { id: deploymentId, ownerId: viewer.userId } });
    if (count === 0) throw notFound('deployment', deploymentId);
    return { deploymentId, deleted: true };
  }

  async function getUsage(viewer: Viewer, input: { deploymentId: string; period?: UsagePeriod | null }): Promise<UsageReport> {
    const row = await prisma.deployment.findFirst({ where: { id: input.deploymentId, ownerId: viewer.userId }, select: { id: true } });
    if (!row) throw notFound('deployment', input.deploymentId);
    return usage.report({ deploymentId: row.id, ownerId: viewer.userId, period: input.period ?? 'month', now: clock.now() });
  }

  /**
   * The deployment behind a tool-endpoint request (spec 5.3): unknown → NOT_FOUND; private
   * without a viewer → UNAUTHORIZED; another user's private one → NOT_FOUND; inactive → FORBIDDEN.
   * Read from the database on every request, so deletion or deactivation cuts clients off at once.
   */
  async function loadDeploymentForEndpoint(deploymentId: string, viewer: Viewer | null): Promise<EndpointTarget> {
    const rows = await db.read<EndpointRow>(ENDPOINT_TARGET, [deploymentId]);
    const row = rows[0];
    // Without a credential an unknown deployment answers as a private one: existence never leaks.
    const tokenRequired = () =>
      new AppError(
        'UNAUTHORIZED',
        "this endpoint needs a credential unless its deployment allows anonymous use: connect with OAuth (see WWW-Authenticate), or send the owner's ID token or API key as Authorization: Bearer <token>",
        {},
        { 'WWW-Authenticate': 'Bearer' },
      );
    if (!row) throw viewer ? notFound('deployment', deploymentId) : tokenRequired();
    if (!row.allowAnonymous) {
      if (!viewer) throw tokenRequired();
      if (viewer.userId !== row.ownerId) throw notFound('deployment', deploymentId);
    }
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
      name: row.name,
      description: row.description,
      allowAnonymous: row.allowAnonymous,
      enabledAdapters: adapterSet(row.enabledAdapters),
      // Unavailable workflows never reach the endpoint: not as tools, prompts or resources.
      bundle: resolveBundle(bundled, row.ownerId).filter((w) => w.available),
    };
  }

  /** The workflows a connection on `adapter` is offered, with their manifests, in deployment order. */
  function renderableFor(target: EndpointTarget, adapter: Adapter): Promise<EndpointWorkflow[]> {
    return renderable(target.bundle, adapter, manifests, readRows);
  }

  /** Admits one request of `caller` to the endpoint: counts its connection if new, or refuses it over the quota. */
  function admitConnection(target: EndpointTarget, adapter: Adapter, caller: ConnectionCaller): Promise<boolean> {
    return usage.admitConnection({ deploymentId: target.deploymentId, ownerId: target.ownerId, adapter, caller, at: clock.now() });
  }

  return {
    listDeployments,
    getDeployment,
    bundlesOf,
    usageSummaries,
    endpointOf,
    createDeployment,
    updateDeployment,
    setAdapter,
    activate: (viewer: Viewer, deploymentId: string) => setStatus(viewer, deploymentId, 'active'),
    deactivate: (viewer: Viewer, deploymentId: string) => setStatus(viewer, deploymentId, 'inactive'),
    deleteDeployment,
    getUsage,
    loadDeploymentForEndpoint,
    renderableFor,
    admitConnection,
  };
}
