import { builder, graphqlOnly } from '../graphql/builder.js';
import { pageRef } from '../graphql/pagination.js';
import { adapterSet } from '../manifest/adapters.js';
import { AdapterRef } from '../manifest/graphql.js';
import { ADAPTERS, type Adapter } from '../manifest/types.js';
import { UserRef } from '../users/graphql.js';
import { deploymentWorkflowStats, type DeploymentWorkflowStats } from '../workflows/stats.js';
import { EXPECTED_REVISION, workflowFields } from '../workflows/graphql.js';
import { bundleStateOf, type BundleState } from './bundle.js';
import {
  DEPLOYMENT_STATUSES,
  DEPLOYMENT_WORKFLOW_SELECT,
  USAGE_PERIODS,
  type DeploymentUsageSummary,
  type DeploymentWorkflowRow,
  type UsageReport,
} from './types.js';

const StatusRef = builder.enumType('DeploymentStatus', { values: DEPLOYMENT_STATUSES });
const PeriodRef = builder.enumType('UsagePeriod', { values: USAGE_PERIODS });

const StatsRef = builder.objectRef<DeploymentWorkflowStats>('DeploymentWorkflowStats').implement({
  description: 'Marketplace figures of a bundled workflow.',
  fields: (t) => ({
    subscribersCount: t.exposeInt('subscribersCount'),
    forksCount: t.exposeInt('forksCount'),
    ratingCount: t.exposeInt('ratingCount'),
    averageRating: t.exposeFloat('averageRating', { nullable: true }),
  }),
});

/** A field of the state of a bundled workflow (rows come from the bundle, so the state is never null here). */
function stateOf(w: DeploymentWorkflowRow): BundleState {
  const state = bundleStateOf(w);
  if (!state) throw new Error(`workflow ${w.id} is not in the bundle it was read with`);
  return state;
}

/**
 * A workflow as a deployment bundles it: a variant of the Workflow prismaObject whose rows are read
 * with the deployment's bundle (one SQL statement for every deployment of a page), in the shape of
 * DEPLOYMENT_WORKFLOW_SELECT; the fields select nothing of their own.
 */
const DeploymentWorkflowRef = builder.prismaObject('Workflow', {
  variant: 'DeploymentWorkflow',
  description: 'A workflow bundled in a deployment, at the version the deployment uses (spec 2.4).',
  select: DEPLOYMENT_WORKFLOW_SELECT,
  fields: (t) => ({
    workflowId: t.field(workflowFields.workflowId),
    name: t.field(workflowFields.name),
    version: t.string({ resolve: (w) => stateOf(w).version }),
    isOwned: t.boolean({ resolve: (w) => stateOf(w).isOwned }),
    available: t.boolean({
      description:
        'False while the author keeps this subscribed workflow private, or while the operators suspend it: it stays in the deployment but the endpoint does not offer it.',
      resolve: (w) => stateOf(w).available,
    }),
    unavailableReason: t.string({
      nullable: true,
      description: 'Why the workflow is unavailable; null while available.',
      resolve: (w) => stateOf(w).unavailableReason,
    }),
    stats: t.field({ type: StatsRef, extensions: graphqlOnly, resolve: (w) => deploymentWorkflowStats(w) }),
  }),
});

const UsageSummaryRef = builder.objectRef<DeploymentUsageSummary>('DeploymentUsageSummary').implement({
  fields: (t) => ({
    connectionsThisMonth: t.exposeInt('connectionsThisMonth', {
      description: 'Connections (MCP initialize requests) this UTC calendar month.',
    }),
    lastConnectedAt: t.exposeString('lastConnectedAt', { nullable: true }),
  }),
});

export const DeploymentRef = builder.prismaObject('Deployment', {
  description: 'A bundle of workflows behind one MCP tool endpoint (spec 2.4).',
  fields: (t) => ({
    deploymentId: t.string({ resolve: (d) => d.id }),
    teamId: t.exposeString('teamId', {
      nullable: true,
      description: 'The team whose deployment this is (every member may use it; owners and admins change it); null for a personal one.',
    }),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    workflows: t.field({ type: [DeploymentWorkflowRef], resolve: (d, _args, ctx) => ctx.loaders.deploymentBundle.load(d.id) }),
    enabledAdapters: t.field({ type: [AdapterRef], resolve: (d) => adapterSet(d.enabledAdapters) }),
    status: t.expose('status', { type: StatusRef }),
    allowAnonymous: t.exposeBoolean('allowAnonymous'),
    mcpEndpoint: t.string({ resolve: (d, _args, ctx) => ctx.services.deployments.endpointOf(d.id) }),
    usage: t.field({ type: UsageSummaryRef, resolve: (d, _args, ctx) => ctx.loaders.deploymentUsage.load(d) }),
    createdAt: t.string({ resolve: (d) => d.createdAt.toISOString() }),
    updatedAt: t.string({ resolve: (d) => d.updatedAt.toISOString() }),
    revision: t.exposeInt('revision', {
      extensions: graphqlOnly,
      description:
        'Counts the writes made to this deployment (1 when created). Send it back as expectedRevision to make an update conditional; REST gives it as the ETag header.',
    }),
  }),
});

const DeploymentPageRef = pageRef('DeploymentPage', DeploymentRef);

const ConnectionsRef = builder.objectRef<UsageReport['connections']>('DeploymentConnections').implement({
  fields: (t) => ({
    total: t.exposeInt('total', { description: "This deployment's connections in the period." }),
    limit: t.exposeInt('limit', { description: "The owner's monthly connection quota." }),
    remaining: t.exposeInt('remaining', { description: "What is left of the quota this month, across all of the owner's deployments." }),
  }),
});

const ByAdapterRef = builder.objectRef<UsageReport['byAdapter']>('DeploymentConnectionsByAdapter').implement({
  description: 'Connections in the period per adapter: one field per adapter.',
  fields: (t) => Object.fromEntries(ADAPTERS.map((a) => [a, t.exposeInt(a)])),
});

const AdapterCountRef = builder.objectRef<{ adapter: Adapter; count: number }>('DeploymentAdapterCount').implement({
  description: 'Connections in the period on one adapter.',
  fields: (t) => ({
    adapter: t.field({ type: AdapterRef, resolve: (r) => r.adapter }),
    count: t.exposeInt('count'),
  }),
});

const DayCountRef = builder.objectRef<UsageReport['byDay'][number]>('DeploymentDayCount').implement({
  fields: (t) => ({ date: t.exposeString('date'), count: t.exposeInt('count') }),
});

const MemberCountRef = builder.objectRef<UsageReport['byMember'][number]>('DeploymentMemberCount').implement({
  description: "Connections in the period by one member of the deployment's team.",
  fields: (t) => ({ userId: t.exposeString('userId'), count: t.exposeInt('count') }),
});

const ClientCountRef = builder.objectRef<UsageReport['byClient'][number]>('DeploymentClientCount').implement({
  description: 'Connections in the period by one MCP client.',
  fields: (t) => ({
    client: t.exposeString('client', {
      nullable: true,
      description: "The client's clientInfo.name (at most 100 characters); null when the request that counted the connection named none.",
    }),
    count: t.exposeInt('count'),
  }),
});

const UsageReportRef = builder.objectRef<UsageReport>('DeploymentUsageReport').implement({
  fields: (t) => ({
    deploymentId: t.exposeString('deploymentId'),
    period: t.field({ type: PeriodRef, resolve: (r) => r.period }),
    from: t.exposeString('from'),
    to: t.exposeString('to'),
    connections: t.field({ type: ConnectionsRef, resolve: (r) => r.connections }),
    byAdapter: t.field({ type: ByAdapterRef, resolve: (r) => r.byAdapter }),
    adapterCounts: t.field({
      type: [AdapterCountRef],
      description: 'byAdapter as a list, every adapter in the canonical order: a client reads it without naming each adapter.',
      resolve: (r) => ADAPTERS.map((adapter) => ({ adapter, count: r.byAdapter[adapter] })),
      // REST answers the specification's usage data, whose byAdapter is the object.
      extensions: graphqlOnly,
    }),
    byDay: t.field({ type: [DayCountRef], resolve: (r) => r.byDay }),
    byMember: t.field({
      type: [MemberCountRef],
      description:
        "A team's deployment: the period's connections per current member of the team, most first; empty for a personal deployment.",
      resolve: (r) => r.byMember,
    }),
    byClient: t.field({
      type: [ClientCountRef],
      description: "The period's connections per MCP client (its clientInfo.name), most first.",
      resolve: (r) => r.byClient,
    }),
  }),
});

const AdaptersResultRef = builder.objectRef<{ deploymentId: string; enabledAdapters: Adapter[] }>('DeploymentAdapters').implement({
  fields: (t) => ({
    deploymentId: t.exposeString('deploymentId'),
    enabledAdapters: t.field({ type: [AdapterRef], resolve: (r) => r.enabledAdapters }),
  }),
});

const DeletionRef = builder.objectRef<{ deploymentId: string; deleted: true }>('DeploymentDeletion').implement({
  fields: (t) => ({ deploymentId: t.exposeString('deploymentId'), deleted: t.exposeBoolean('deleted') }),
});

const auth = { authenticated: true } as const;

builder.queryFields((t) => ({
  deployments: t.field({
    type: DeploymentPageRef,
    description:
      "The signed-in user's personal deployments, or with teamId a team's (for its members), newest first, each with usage. REST: GET /v1/deployments.",
    authScopes: auth,
    args: { teamId: t.arg.string(), status: t.arg({ type: StatusRef }), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.services.deployments.listDeployments(ctx.viewer!, args),
  }),
  deployment: t.field({
    type: DeploymentRef,
    description: 'One deployment. REST: GET /v1/deployments/:deploymentId.',
    authScopes: auth,
    args: { deploymentId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.deployments.getDeployment(ctx.viewer!, args.deploymentId),
  }),
  deploymentUsage: t.field({
    type: UsageReportRef,
    description: 'Connections to a deployment in this UTC day, ISO week or month. REST: GET /v1/deployments/:deploymentId/usage.',
    authScopes: auth,
    args: { deploymentId: t.arg.string({ required: true }), period: t.arg({ type: PeriodRef, defaultValue: 'month' }) },
    resolve: (_root, args, ctx) => ctx.services.deployments.getUsage(ctx.viewer!, args),
  }),
}));

builder.mutationFields((t) => ({
  createDeployment: t.field({
    type: DeploymentRef,
    description: 'Bundles workflows behind a new MCP endpoint. REST: POST /v1/deployments.',
    authScopes: auth,
    args: {
      name: t.arg.string({ required: true }),
      description: t.arg.string(),
      workflowIds: t.arg.stringList({ required: true }),
      enabledAdapters: t.arg({ type: [AdapterRef] }),
      allowAnonymous: t.arg.boolean(),
      teamId: t.arg.string({ description: "Makes the deployment a team's: a team the caller owns or administers." }),
    },
    resolve: (_root, args, ctx) => ctx.services.deployments.createDeployment(ctx.viewer!, args),
  }),
  updateDeployment: t.field({
    type: DeploymentRef,
    description: 'Changes a deployment; every field is optional and description: null removes it. REST: PUT /v1/deployments/:deploymentId.',
    authScopes: auth,
    args: {
      deploymentId: t.arg.string({ required: true }),
      name: t.arg.string(),
      description: t.arg.string(),
      workflowIds: t.arg.stringList(),
      enabledAdapters: t.arg({ type: [AdapterRef] }),
      allowAnonymous: t.arg.boolean(),
      teamId: t.arg.string({
        description:
          "Moves the deployment: a team id moves the caller's personal deployment into a team they own or administer; null moves a team's deployment out, by an owner of the team, to the owner's personal deployments.",
      }),
      expectedRevision: t.arg.int({ description: EXPECTED_REVISION }),
    },
    resolve: (_root, { expectedRevision, ...args }, ctx) =>
      ctx.services.deployments.updateDeployment(ctx.viewer!, args, { expectedRevision }),
  }),
  setDeploymentAdapter: t.field({
    type: AdaptersResultRef,
    description: 'Enables or disables one adapter on a deployment. REST: POST /v1/deployments/:deploymentId/adapters.',
    authScopes: auth,
    args: {
      deploymentId: t.arg.string({ required: true }),
      adapter: t.arg({ type: AdapterRef, required: true }),
      enabled: t.arg.boolean({ required: true }),
    },
    resolve: (_root, args, ctx) => ctx.services.deployments.setAdapter(ctx.viewer!, args),
  }),
  activateDeployment: t.field({
    type: DeploymentRef,
    description: 'Makes an inactive deployment active again. REST: POST /v1/deployments/:deploymentId/activate.',
    authScopes: auth,
    args: { deploymentId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.deployments.activate(ctx.viewer!, args.deploymentId),
  }),
  deactivateDeployment: t.field({
    type: DeploymentRef,
    description: 'Switches a deployment off without deleting it. REST: POST /v1/deployments/:deploymentId/deactivate.',
    authScopes: auth,
    args: { deploymentId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.deployments.deactivate(ctx.viewer!, args.deploymentId),
  }),
  deleteDeployment: t.field({
    type: DeletionRef,
    description: 'Deletes a deployment for good; its endpoint stops answering at once. REST: DELETE /v1/deployments/:deploymentId.',
    authScopes: auth,
    args: { deploymentId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.deployments.deleteDeployment(ctx.viewer!, args.deploymentId),
  }),
}));

builder.objectField(UserRef, 'deployments', (t) =>
  t.field({
    type: [DeploymentRef],
    description:
      "The user's deployments with workflows and usage, newest first (dashboard; for pages use Query.deployments). Empty for any user but the viewer.",
    extensions: graphqlOnly,
    args: { status: t.arg({ type: StatusRef }), limit: t.arg.int() },
    resolve: async (user, args, ctx) =>
      user.id === ctx.viewer?.userId ? (await ctx.services.deployments.listDeployments(ctx.viewer, args)).data : [],
  }),
);
