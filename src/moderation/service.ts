import type { ModerationAction, ModerationActionKind, ModerationState, Prisma } from '@prisma/client';
import { newId } from '../clock.js';
import { isUniqueViolation } from '../db/errors.js';
import { afterPosition, newestFirstOrderBy } from '../db/keyset.js';
import { AppError, notFound, validationError } from '../errors.js';
import type { Viewer } from '../auth/viewer.js';
import { newestFirstPage, pageLimit, timeCursorPosition, type Page } from '../pagination.js';
import { withContext, type ServiceDeps } from '../service-deps.js';
import { characterCount, TEXT_LIMITS } from '../text.js';
import { lockWorkflowForModeration, setModeration } from './sql.js';
import { recordCreated } from '../idempotency/within-create.js';

export type { ModerationAction };

/**
 * Reports and takedown (docs/marketplace.md, "Reports and takedown"). Any signed-in user reports
 * another user's public workflow, with a reason; the operators (ADMIN_EMAILS) read the reports and
 * unlist a workflow (out of browse, search and featured; still served to its subscribers), suspend
 * it (served in no deployment) or reinstate it, or dismiss its reports. Every operator action is a
 * row of the log: who, when, why, and how many open reports it closed.
 *
 * To anyone else, the operators' operations do not exist: they answer NOT_FOUND, as an unknown
 * route does on REST (src/rest/routes.ts, `operatorsOnly`), so that a probe tells nobody who the
 * operators are or what they can do.
 */

/** A reason, a report's or an operator's: trimmed, 1 to 1000 characters. */
export const REASON_MAX = TEXT_LIMITS.moderationReason;

export const MODERATION_ACTIONS = ['unlist', 'suspend', 'reinstate', 'dismiss'] as const satisfies readonly ModerationActionKind[];

/** The state each action leaves the workflow in (dismiss leaves it as it is). */
const STATE_AFTER: Record<ModerationActionKind, ModerationState | null> = {
  unlist: 'unlisted',
  suspend: 'suspended',
  reinstate: 'listed',
  dismiss: null,
};

/** Reports newest first (the one keyset order, src/db/keyset.ts). */
const REPORT_ORDER = newestFirstOrderBy('createdAt');
const ACTION_ORDER = newestFirstOrderBy('at');

/** What a report answer shows: the report, the workflow's summary and both users' public columns. */
const REPORT_INCLUDE = {
  reporter: { select: { id: true, displayName: true } },
  workflow: {
    select: { id: true, name: true, visibility: true, moderationState: true, owner: { select: { id: true, displayName: true } } },
  },
} as const satisfies Prisma.WorkflowReportInclude;

export type ReportRow = Prisma.WorkflowReportGetPayload<{ include: typeof REPORT_INCLUDE }>;

interface ModerateInput {
  action: ModerationActionKind;
  reason: string;
}

interface ListInput {
  limit?: number | null;
  cursor?: string | null;
}

function cleanReason(raw: string, field = 'reason'): string {
  const reason = raw.trim();
  const count = characterCount(reason);
  if (count === 0) throw validationError([{ field, message: `${field} must not be empty: say what is wrong` }]);
  if (count > REASON_MAX) throw validationError([{ field, message: `${field} must be at most ${REASON_MAX} characters (got ${count})` }]);
  return reason;
}

/** What a non-operator is told of an operators' operation: the same as of a route that does not exist. */
function operatorsOnly(): AppError {
  return new AppError('NOT_FOUND', 'not found', { reason: 'operators_only' });
}

/**
 * Why a workflow is served in no deployment, for the subscribers' and the author's deployment
 * pages (src/workflows/service.ts, unavailableReason); null unless it is suspended.
 */
export function suspensionReason(workflow: { moderationState?: ModerationState; moderationReason?: string | null }): string | null {
  if (workflow.moderationState !== 'suspended') return null;
  return `suspended by the operators: ${workflow.moderationReason ?? 'no reason given'}`;
}

/**
 * Refuses to make a new subscription or fork of a workflow the operators unlisted or suspended:
 * those it had stay (an unlisted one is still served to them), no new ones are made.
 */
export function refuseIfTakenDown(
  workflow: { id: string; moderationState: ModerationState; moderationReason: string | null },
  what: 'forked' | 'added to a library',
): void {
  if (workflow.moderationState === 'listed') return;
  throw new AppError(
    'FORBIDDEN',
    `this workflow was ${workflow.moderationState} by the operators and cannot be ${what}: ${workflow.moderationReason ?? 'no reason given'}`,
    { workflowId: workflow.id, reason: `workflow_${workflow.moderationState}` },
  );
}

/** What the operations are built from: the service's deps and the operators' addresses. */
type ModerationContext = ServiceDeps & { operators: Set<string> };

/** Whether the viewer is an operator: their e-mail address, as the identity provider asserts it, is in ADMIN_EMAILS. */
function isOperator(ctx: ModerationContext, viewer: Viewer | null | undefined): boolean {
  return Boolean(viewer?.email && ctx.operators.has(viewer.email.trim().toLowerCase()));
}

function requireOperator(ctx: ModerationContext, viewer: Viewer): void {
  if (!isOperator(ctx, viewer)) throw operatorsOnly();
}

/**
 * Reports another user's public workflow. A private or unknown one is NOT_FOUND (as everywhere);
 * one's own is refused; a second report of the same workflow while the first is open is CONFLICT.
 */
async function reportWorkflow(ctx: ModerationContext, viewer: Viewer, workflowId: string, input: { reason: string }): Promise<ReportRow> {
  const reason = cleanReason(input.reason);
  const workflow = await ctx.db.prisma.workflow.findUnique({ where: { id: workflowId }, select: { ownerId: true, visibility: true } });
  if (!workflow) throw notFound('workflow', workflowId);
  if (workflow.ownerId === viewer.userId)
    throw new AppError('FORBIDDEN', 'you cannot report your own workflow; make it private or delete it instead', { workflowId });
  if (workflow.visibility !== 'public') throw notFound('workflow', workflowId);
  try {
    const id = newId('rpt');
    return await ctx.db.prisma.$transaction(async (tx) => {
      await recordCreated(tx, `/admin/reports/${id}`);
      return tx.workflowReport.create({
        data: { id, workflowId, reporterId: viewer.userId, reason, createdAt: ctx.clock.now() },
        include: REPORT_INCLUDE,
      });
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw new AppError('CONFLICT', 'you have already reported this workflow; the operators have not yet closed that report', {
      workflowId,
      reason: 'already_reported',
    });
  }
}

/** The reports, newest first: the open ones by default, `closed` or every one (`all`) on request. Operators only. */
async function listReports(
  ctx: ModerationContext,
  viewer: Viewer,
  input: ListInput & { status?: 'open' | 'closed' | 'all' | null },
): Promise<Page<ReportRow>> {
  requireOperator(ctx, viewer);
  const limit = pageLimit(input.limit);
  const status = input.status ?? 'open';
  const kind = `reports:${status}`;
  const where: Prisma.WorkflowReportWhereInput = status === 'all' ? {} : { status };
  if (input.cursor) where.OR = afterPosition('createdAt', timeCursorPosition(input.cursor, kind));
  const rows = await ctx.db.prisma.workflowReport.findMany({ where, orderBy: REPORT_ORDER, take: limit + 1, include: REPORT_INCLUDE });
  return newestFirstPage(rows, limit, kind, 'createdAt');
}

/** The operators' log, newest first, of one workflow or of all. Operators only. */
async function listActions(
  ctx: ModerationContext,
  viewer: Viewer,
  input: ListInput & { workflowId?: string | null },
): Promise<Page<ModerationAction>> {
  requireOperator(ctx, viewer);
  const limit = pageLimit(input.limit);
  const kind = `moderation-actions:${input.workflowId ?? ''}`;
  const where: Prisma.ModerationActionWhereInput = input.workflowId ? { workflowId: input.workflowId } : {};
  if (input.cursor) where.OR = afterPosition('at', timeCursorPosition(input.cursor, kind));
  const rows = await ctx.db.prisma.moderationAction.findMany({ where, orderBy: ACTION_ORDER, take: limit + 1 });
  return newestFirstPage(rows, limit, kind, 'at');
}

/**
 * An operator's action on a workflow, with its reason: changes its state (unlist, suspend,
 * reinstate), closes its open reports (every action but reinstate), and is logged, all in one
 * transaction that holds the workflow's row. An action that would change nothing is refused.
 */
async function moderateWorkflow(
  ctx: ModerationContext,
  viewer: Viewer,
  workflowId: string,
  input: ModerateInput,
): Promise<ModerationAction> {
  requireOperator(ctx, viewer);
  if (!MODERATION_ACTIONS.includes(input.action))
    throw validationError([{ field: 'action', message: `action must be one of ${MODERATION_ACTIONS.join(', ')}` }]);
  const reason = cleanReason(input.reason);
  return ctx.db.prisma.$transaction(async (tx) => {
    const [workflow] = await tx.$queryRaw<{ id: string; name: string; moderation_state: ModerationState }[]>(
      lockWorkflowForModeration(workflowId),
    );
    if (!workflow) throw notFound('workflow', workflowId);
    const state = STATE_AFTER[input.action];
    if (state !== null && state === workflow.moderation_state)
      throw new AppError('CONFLICT', `the workflow is already ${state}`, { workflowId, state, reason: 'no_change' });
    const now = ctx.clock.now();
    const id = newId('mod');
    let reportsClosed = 0;
    if (input.action !== 'reinstate') {
      const closed = await tx.workflowReport.updateMany({
        where: { workflowId, status: 'open' },
        data: { status: 'closed', closedAt: now, closedByActionId: id },
      });
      reportsClosed = closed.count;
      if (input.action === 'dismiss' && reportsClosed === 0)
        throw new AppError('CONFLICT', 'the workflow has no open reports to dismiss', { workflowId, reason: 'no_change' });
    }
    if (state !== null) {
      // Raw, so that updated_at stays: the author did not change the workflow.
      await tx.$executeRaw(setModeration(workflowId, state, reason, now));
    }
    await recordCreated(tx, `/admin/moderation-actions/${id}`);
    return tx.moderationAction.create({
      data: {
        id,
        workflowId,
        workflowName: workflow.name,
        operatorId: viewer.userId,
        operatorEmail: viewer.email!.trim().toLowerCase(),
        action: input.action,
        reason,
        reportsClosed,
        at: now,
      },
    });
  });
}

export function createModerationService({ db, clock, config }: ServiceDeps) {
  return withContext(
    { db, clock, config, operators: new Set(config.operatorEmails) },
    { isOperator, reportWorkflow, listReports, listActions, moderateWorkflow },
  );
}
