import { builder, graphqlOnly } from '../graphql/builder.js';
import { pageRef } from '../graphql/pagination.js';
import { handleOf } from '../marketplace/identity.js';
import { UserRef } from '../users/graphql.js';
import { WorkflowRef } from '../workflows/graphql.js';
import { MODERATION_ACTIONS, REASON_MAX, type ModerationAction, type ReportRow } from './service.js';

const ModerationStateEnum = builder.enumType('ModerationState', {
  description:
    'listed: as its author published it. unlisted: out of browse, search and featured, still served to its subscribers. suspended: served in no deployment.',
  values: ['listed', 'unlisted', 'suspended'] as const,
});

const ModerationActionKindEnum = builder.enumType('ModerationActionKind', {
  description: 'unlist, suspend, reinstate (listed again) or dismiss (close the open reports, change nothing).',
  values: MODERATION_ACTIONS,
});

const ReportStatusFilterEnum = builder.enumType('ReportStatusFilter', { values: ['open', 'closed', 'all'] as const });

const PartyRef = builder.objectRef<{ id: string; displayName: string | null }>('ReportParty').implement({
  description: "A user's public identity in a report: the id and the handle. Never the e-mail address.",
  fields: (t) => ({ userId: t.exposeString('id'), handle: t.string({ resolve: (u) => handleOf(u) }) }),
});

const ReportedWorkflowRef = builder.objectRef<ReportRow['workflow']>('ReportedWorkflow').implement({
  fields: (t) => ({
    workflowId: t.exposeString('id'),
    name: t.exposeString('name'),
    visibility: t.exposeString('visibility'),
    moderationState: t.field({ type: ModerationStateEnum, resolve: (w) => w.moderationState }),
    owner: t.field({ type: PartyRef, resolve: (w) => w.owner }),
  }),
});

const WorkflowReportRef = builder.objectRef<ReportRow>('WorkflowReport').implement({
  description: 'A user\'s report of a public workflow, for the operators (docs/marketplace.md, "Reports and takedown").',
  fields: (t) => ({
    reportId: t.exposeString('id'),
    workflow: t.field({ type: ReportedWorkflowRef, resolve: (r) => r.workflow }),
    reporter: t.field({ type: PartyRef, resolve: (r) => r.reporter }),
    reason: t.exposeString('reason'),
    status: t.exposeString('status', { description: 'open, or closed by an operator action.' }),
    createdAt: t.string({ resolve: (r) => r.createdAt.toISOString() }),
    closedAt: t.string({ nullable: true, resolve: (r) => r.closedAt?.toISOString() ?? null }),
    closedByActionId: t.exposeString('closedByActionId', { nullable: true }),
  }),
});

const ModerationActionRef = builder.objectRef<ModerationAction>('ModerationAction').implement({
  description: "An entry of the operators' log: who did what to which workflow, when and why.",
  fields: (t) => ({
    actionId: t.exposeString('id'),
    workflowId: t.exposeString('workflowId'),
    workflowName: t.exposeString('workflowName', { description: 'The name when the action was taken.' }),
    action: t.field({ type: ModerationActionKindEnum, resolve: (a) => a.action }),
    reason: t.exposeString('reason'),
    reportsClosed: t.exposeInt('reportsClosed'),
    operatorId: t.exposeString('operatorId'),
    operatorEmail: t.exposeString('operatorEmail'),
    at: t.string({ resolve: (a) => a.at.toISOString() }),
  }),
});

const ModerationRef = builder
  .objectRef<{ moderationState: string; moderationReason: string | null; moderatedAt: Date | null }>('Moderation')
  .implement({
    description: "The operators' decision on a workflow: its state, why and when (null reason and time: never moderated).",
    fields: (t) => ({
      state: t.field({ type: ModerationStateEnum, resolve: (w) => w.moderationState as 'listed' }),
      reason: t.exposeString('moderationReason', { nullable: true }),
      at: t.string({ nullable: true, resolve: (w) => w.moderatedAt?.toISOString() ?? null }),
    }),
  });

// The author is told: the workflow's answer carries its moderation, on REST and GraphQL alike.
builder.prismaObjectField(WorkflowRef, 'moderation', (t) =>
  t.field({
    type: ModerationRef,
    description: 'Whether the operators unlisted or suspended this workflow, why and when.',
    resolve: (w) => w,
  }),
);

builder.prismaObjectField(UserRef, 'isOperator', (t) =>
  t.boolean({
    description: 'Whether you are an operator (ADMIN_EMAILS), who handles marketplace reports (dashboard).',
    extensions: graphqlOnly,
    resolve: (_user, _args, ctx) => ctx.services.moderation.isOperator(ctx.viewer),
  }),
);

const ReportPageRef = pageRef('WorkflowReportPage', WorkflowReportRef);
const ModerationActionPageRef = pageRef('ModerationActionPage', ModerationActionRef);
const reasonDescription = `Why, 1 to ${REASON_MAX} characters.`;

builder.queryFields((t) => ({
  moderationReports: t.field({
    type: ReportPageRef,
    description: 'Reports of workflows, newest first (default: the open ones). Operators only. REST: GET /v1/admin/reports.',
    authScopes: { authenticated: true },
    args: {
      status: t.arg({ type: ReportStatusFilterEnum, description: 'Default open.' }),
      limit: t.arg.int({ description: 'Page size, 1 to 100 (default 20).' }),
      cursor: t.arg.string(),
    },
    resolve: (_root, args, ctx) => ctx.services.moderation.listReports(ctx.viewer!, args),
  }),
  moderationActions: t.field({
    type: ModerationActionPageRef,
    description: "The operators' log, newest first, of one workflow or all. Operators only. REST: GET /v1/admin/moderation-actions.",
    authScopes: { authenticated: true },
    args: {
      workflowId: t.arg.string({ description: 'Only the actions on this workflow.' }),
      limit: t.arg.int({ description: 'Page size, 1 to 100 (default 20).' }),
      cursor: t.arg.string(),
    },
    resolve: (_root, args, ctx) => ctx.services.moderation.listActions(ctx.viewer!, args),
  }),
}));

builder.mutationFields((t) => ({
  reportWorkflow: t.field({
    type: WorkflowReportRef,
    description:
      "Reports another user's public workflow to the operators; one open report per user and workflow. REST: POST /v1/workflows/:workflowId/reports.",
    authScopes: { authenticated: true },
    args: { workflowId: t.arg.string({ required: true }), reason: t.arg.string({ required: true, description: reasonDescription }) },
    resolve: (_root, { workflowId, reason }, ctx) => ctx.services.moderation.reportWorkflow(ctx.viewer!, workflowId, { reason }),
  }),
  moderateWorkflow: t.field({
    type: ModerationActionRef,
    description:
      'Unlists, suspends or reinstates a workflow, or dismisses its open reports, and logs it. Operators only. REST: POST /v1/admin/workflows/:workflowId/moderation.',
    authScopes: { authenticated: true },
    args: {
      workflowId: t.arg.string({ required: true }),
      action: t.arg({ type: ModerationActionKindEnum, required: true }),
      reason: t.arg.string({ required: true, description: reasonDescription }),
    },
    resolve: (_root, { workflowId, ...input }, ctx) => ctx.services.moderation.moderateWorkflow(ctx.viewer!, workflowId, input),
  }),
}));
