import { queryFromInfo } from '@pothos/plugin-prisma';
import type { GraphQLResolveInfo } from 'graphql';
import { builder, graphqlOnly } from '../graphql/builder.js';
import { AppError } from '../errors.js';
import { parseExportFormat } from '../manifest/export.js';
import { manifestSourceOf, writtenManifest } from '../manifest/stored.js';
import { parseSkillAdapter, renderSkill } from '../mcp/render/index.js';
import type { GraphQLContext } from '../graphql/context.js';
import { pageRef } from '../graphql/pagination.js';
import { UserRef } from '../users/graphql.js';
import { mayAskFor } from '../graphql/selection.js';
import { canRead, WITHOUT_MANIFEST, type Workflow, type WorkflowQuery } from './service.js';
import { workflowStats, type StatsColumns, type WorkflowStats } from './stats.js';

const VisibilityEnum = builder.enumType('Visibility', {
  description: 'Who may see a workflow: everyone (listed in the marketplace) or only its owner.',
  values: ['public', 'private'] as const,
});

const WorkflowStatsRef = builder.objectRef<WorkflowStats>('WorkflowStats').implement({
  fields: (t) => ({
    forks: t.exposeInt('forks'),
    subscribers: t.exposeInt('subscribers'),
    rating: t.exposeFloat('rating', { description: 'Mean of the ratings, rounded to one decimal; 0 without ratings.' }),
    ratingCount: t.exposeInt('ratingCount'),
  }),
});

const STRING = 'String' as const;

const DIGEST_DESCRIPTION =
  'The content digest of the version, sha256:<hex> over the canonical form of everything an agent sees of it (docs/marketplace.md, "Versions, pins and content digests"): equal content, equal digest.';

/** A row's digest: written with every version, and filled at start for rows recorded before digests existed. */
function digestOf(row: { digest: string | null }): string {
  if (row.digest === null) throw new Error('a workflow version without a content digest: the start-up fill did not run');
  return row.digest;
}

/**
 * A field that is a column of the row under its own name: the field `t.exposeString(name)` would
 * make, as a definition the views share. Pothos gives an exposed field no resolver of its own, so
 * graphql-jit reads the property inline; with a resolver function each such field of each row
 * costs a call, which on a page of workflows adds up to a visible share of the request's CPU.
 */
function column<K extends keyof Workflow, T>(name: K, type: T) {
  return {
    type,
    resolve: (w: Pick<Workflow, K>) => w[name],
    extensions: { pothosExposedField: name },
  };
}

/**
 * The fields every view of a workflow shares, each defined once here: the primary `Workflow`
 * type and its variants `MarketplaceWorkflow` and `DeploymentWorkflow` (prismaObjects of the
 * Workflow model) take them with `t.field(workflowFields.name)`. They read the columns of the row
 * the parent resolver returned and select nothing of their own, so a view whose rows the service
 * reads with SQL of its own resolves without a further query. The fields whose key is the
 * column's are exposed columns (`column`).
 */
export const workflowFields = {
  workflowId: { type: STRING, resolve: (w: Pick<Workflow, 'id'>) => w.id },
  name: column('name', STRING),
  description: column('description', STRING),
  visibility: column('visibility', VisibilityEnum),
  category: column('category', STRING),
  tags: column('tags', [STRING] as [typeof STRING]),
  currentVersion: column('currentVersion', STRING),
  stats: { type: WorkflowStatsRef, resolve: (w: StatsColumns) => workflowStats(w) },
  createdAt: { type: STRING, resolve: (w: Pick<Workflow, 'createdAt'>) => w.createdAt.toISOString() },
  updatedAt: { type: STRING, resolve: (w: Pick<Workflow, 'updatedAt'>) => w.updatedAt.toISOString() },
} satisfies Record<string, { type: unknown; resolve: (w: never) => unknown }>;

interface ForkOrigin {
  workflowId: string;
  userId: string;
  version: string;
}

const ForkOriginRef = builder.objectRef<ForkOrigin>('ForkOrigin').implement({
  description: 'Where a forked workflow was copied from (spec 2.3).',
  fields: (t) => ({
    workflowId: t.exposeString('workflowId'),
    userId: t.exposeString('userId'),
    version: t.exposeString('version'),
  }),
});

const ManifestSourceRef = builder.objectRef<{ format: 'yaml' | 'json'; text: string }>('ManifestSource').implement({
  description: 'A manifest as text, in the format its author wrote it in.',
  fields: (t) => ({
    format: t.exposeString('format', { description: 'yaml (sent as YAML text) or json (sent as JSON data or JSON text).' }),
    text: t.exposeString('text'),
  }),
});

/**
 * Rows of this type carry every column (Pothos's default for an object without a `select`), so no
 * field of it, here or in another module, selects columns of its own: Pothos would read the row a
 * second time whenever a parent resolver read it with the service's own SQL (`workflow(workflowId)`,
 * GET /v1/workflows/:id). test/workflows/graphql.test.ts counts the statements.
 */
export const WorkflowRef = builder.prismaObject('Workflow', {
  description: 'A workflow: its manifest and the summary fields of spec 2.3.',
  // The order of the fields is the order of the keys of every REST answer.
  fields: (t) => ({
    workflowId: t.field(workflowFields.workflowId),
    name: t.field(workflowFields.name),
    description: t.field(workflowFields.description),
    visibility: t.field(workflowFields.visibility),
    category: t.field(workflowFields.category),
    tags: t.field(workflowFields.tags),
    currentVersion: t.field(workflowFields.currentVersion),
    digest: t.string({ description: DIGEST_DESCRIPTION, resolve: (w) => digestOf(w) }),
    allowForks: t.exposeBoolean('allowForks', { description: 'Whether other users may fork this workflow.' }),
    teamId: t.string({
      nullable: true,
      description:
        'The team the workflow belongs to (docs/teams.md, "Team workflows"), shown to the team\'s members; null for a personal workflow, and for anyone outside the team.',
      resolve: async (w, _args, ctx) => (w.teamId && ctx.viewer && (await ctx.loaders.teamRole.load(w.teamId)) ? w.teamId : null),
    }),
    stats: t.field(workflowFields.stats),
    forkedFrom: t.field({
      type: ForkOriginRef,
      nullable: true,
      resolve: (w) =>
        w.forkedFromWorkflowId
          ? { workflowId: w.forkedFromWorkflowId, userId: w.forkedFromUserId ?? '', version: w.forkedFromVersion ?? '' }
          : null,
    }),
    manifest: t.field({
      type: 'JSON',
      description: 'The manifest as written: the same keys in the same order.',
      resolve: (w) => writtenManifest(w),
    }),
    manifestSource: t.field({
      type: ManifestSourceRef,
      extensions: graphqlOnly,
      description:
        'The manifest as text in the format it was written in (YAML exactly as sent; JSON with its key order, indented): what an editor shows.',
      resolve: (w) => manifestSourceOf(w),
    }),
    createdAt: t.field(workflowFields.createdAt),
    updatedAt: t.field(workflowFields.updatedAt),
    revision: t.exposeInt('revision', {
      extensions: graphqlOnly,
      description:
        'Counts the writes made to this workflow (1 when created). Send it back as expectedRevision to make an update conditional; REST gives it as the ETag header.',
    }),
  }),
});

/** The precondition argument of the update mutations (REST sends it as If-Match). */
export const EXPECTED_REVISION =
  'The revision you read: when the resource has been written since, nothing changes and the error is PRECONDITION_FAILED. Left out: no check.';

builder.objectField(WorkflowRef, 'forkedFromWorkflow', (t) =>
  t.field({
    type: WorkflowRef,
    nullable: true,
    extensions: graphqlOnly,
    description: 'The original a fork was made from, while the viewer may still read it.',
    resolve: (w, _args, ctx) => (w.forkedFromWorkflowId ? ctx.loaders.readableWorkflow.load(w.forkedFromWorkflowId) : null),
  }),
);

const ViewerForkRef = builder.objectRef<{ forkedAt: Date; forkId: string | null }>('ViewerFork').implement({
  description: "The caller's fork of a workflow; a workflow can be forked once per user, even after the fork is deleted (spec 2.9).",
  fields: (t) => ({
    forkedAt: t.string({ resolve: (f) => f.forkedAt.toISOString() }),
    forkId: t.string({ nullable: true, description: 'null: the fork was deleted (no other fork can be made).', resolve: (f) => f.forkId }),
  }),
});

builder.objectField(WorkflowRef, 'viewerFork', (t) =>
  t.field({
    type: ViewerForkRef,
    nullable: true,
    extensions: graphqlOnly,
    description: 'Whether the caller has forked this workflow (null: never; then Fork is possible if allowForks).',
    resolve: (w, _args, ctx) => (ctx.viewer ? ctx.services.workflows.viewerFork(ctx.viewer, w.id) : null),
  }),
);

const WorkflowVersionRef = builder.prismaObject('WorkflowVersion', {
  description: 'One recorded version of a workflow: everything an agent sees of it at that version, and its content digest.',
  fields: (t) => ({
    workflowId: t.exposeString('workflowId'),
    version: t.exposeString('version'),
    name: t.exposeString('name', { description: 'The name at this version.' }),
    description: t.exposeString('description', { description: 'The description at this version.' }),
    category: t.exposeString('category', { description: 'The category at this version.' }),
    tags: t.exposeStringList('tags', { description: 'The tags at this version.' }),
    digest: t.string({ description: DIGEST_DESCRIPTION, resolve: (v) => digestOf(v) }),
    manifest: t.field({ type: 'JSON', description: 'The manifest of this version as written.', resolve: (v) => writtenManifest(v) }),
    manifestSource: t.field({
      type: ManifestSourceRef,
      extensions: graphqlOnly,
      description: 'The manifest of this version as text in the format it was written in: what a comparison of versions shows.',
      resolve: (v) => manifestSourceOf(v),
    }),
    createdAt: t.string({ resolve: (v) => v.createdAt.toISOString() }),
  }),
});

const WorkflowPageRef = pageRef('WorkflowPage', WorkflowRef);
const WorkflowVersionPageRef = pageRef('WorkflowVersionPage', WorkflowVersionRef);

builder.objectField(WorkflowRef, 'versions', (t) =>
  t.field({
    type: WorkflowVersionPageRef,
    description: 'The recorded versions, newest first, a page at a time (default 20, at most 100).',
    extensions: graphqlOnly,
    args: { limit: t.arg.int(), cursor: t.arg.string() },
    resolve: (w, args, ctx) => {
      if (args.cursor || !canRead(ctx.viewer!, w)) return ctx.services.workflows.listVersionsOf(ctx.viewer!, w, args);
      return ctx.loaders.firstVersionPage(args.limit ?? null).load(w.id);
    },
  }),
);

const DeletedWorkflowRef = builder.objectRef<{ workflowId: string; deleted: true }>('DeletedWorkflow').implement({
  fields: (t) => ({ workflowId: t.exposeString('workflowId'), deleted: t.exposeBoolean('deleted') }),
});

const ManifestDocumentRef = builder.objectRef<{ body: string; contentType: string }>('ManifestDocument').implement({
  description: 'A manifest exported as a document.',
  fields: (t) => ({ contentType: t.exposeString('contentType'), body: t.exposeString('body') }),
});

/** The Prisma include/select for the `data` items of a page, so nested reads are one query per level. */
export function pageItemQuery(ctx: GraphQLContext, info: GraphQLResolveInfo, typeName: string): WorkflowQuery {
  return queryFromInfo({ context: ctx, info, typeName, path: ['data'] }) as WorkflowQuery;
}

/**
 * The query for a page of workflows: pageItemQuery, less the manifest when no item asks for it.
 * A page of summaries (REST's list, the dashboard) then does not read twenty manifests to show
 * none of them.
 */
function workflowPageQuery(ctx: GraphQLContext, info: GraphQLResolveInfo): WorkflowQuery {
  const query = pageItemQuery(ctx, info, 'Workflow');
  if (query.select || mayAskFor(info, ['data'], 'manifest') || mayAskFor(info, ['data'], 'manifestSource')) return query;
  return { ...query, omit: WITHOUT_MANIFEST };
}

builder.queryFields((t) => ({
  workflows: t.field({
    type: WorkflowPageRef,
    description: "The caller's personal workflows, or with teamId a team's, newest first. REST: GET /v1/workflows.",
    authScopes: { authenticated: true },
    args: {
      limit: t.arg.int({ description: 'Page size, 1 to 100 (default 20).' }),
      cursor: t.arg.string(),
      visibility: t.arg({ type: VisibilityEnum }),
      teamId: t.arg.string({ description: "A team's workflows (for its members) in place of your personal ones." }),
    },
    resolve: (_root, args, ctx, info) => ctx.services.workflows.listWorkflows(ctx.viewer!, args, workflowPageQuery(ctx, info)),
  }),
  workflow: t.field({
    type: WorkflowRef,
    description: "One workflow with its manifest: yours, or anyone's public one. REST: GET /v1/workflows/:workflowId.",
    authScopes: { authenticated: true },
    args: { workflowId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.workflows.getWorkflow(ctx.viewer!, args.workflowId),
  }),
  workflowVersions: t.field({
    type: WorkflowVersionPageRef,
    description: 'The recorded versions of a workflow, newest first. REST: GET /v1/workflows/:workflowId/versions.',
    authScopes: { authenticated: true },
    args: { workflowId: t.arg.string({ required: true }), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.services.workflows.listVersions(ctx.viewer!, args.workflowId, args),
  }),
  workflowVersion: t.prismaField({
    type: 'WorkflowVersion',
    description: 'One recorded version with its manifest. REST: GET /v1/workflows/:workflowId/versions/:version.',
    authScopes: { authenticated: true },
    args: { workflowId: t.arg.string({ required: true }), version: t.arg.string({ required: true }) },
    resolve: (_query, _root, args, ctx) => ctx.services.workflows.getVersion(ctx.viewer!, args.workflowId, args.version),
  }),
  workflowManifest: t.field({
    type: ManifestDocumentRef,
    description:
      'The manifest as a JSON or YAML document, or the workflow as an Agent Skill (a SKILL.md, text/markdown) for an adapter. REST: GET /v1/workflows/:workflowId/manifest?format=json|yaml|skill&adapter=….',
    authScopes: { authenticated: true },
    args: {
      workflowId: t.arg.string({ required: true }),
      format: t.arg.string({ description: 'json (default), yaml or skill.' }),
      adapter: t.arg.string({
        description: 'With format skill: the adapter the SKILL.md is written for (adapter_one, adapter_two or adapter_three, the default).',
      }),
    },
    resolve: async (_root, args, ctx) => {
      const format = parseExportFormat(args.format ?? undefined);
      if (format !== 'skill') {
        if (args.adapter != null) {
          throw new AppError('VALIDATION_ERROR', "adapter applies only to format 'skill'", { field: 'adapter', format });
        }
        return ctx.services.workflows.exportWorkflowManifest(ctx.viewer!, args.workflowId, format);
      }
      const adapter = parseSkillAdapter(args.adapter ?? undefined);
      const source = await ctx.services.workflows.exportSource(ctx.viewer!, args.workflowId);
      return { body: renderSkill(source, adapter).text, contentType: 'text/markdown; charset=utf-8' };
    },
  }),
}));

builder.mutationFields((t) => ({
  createWorkflow: t.prismaField({
    type: 'Workflow',
    description: 'Creates a workflow (version 1.0.0) and adds it to your library. REST: POST /v1/workflows.',
    authScopes: { authenticated: true },
    args: {
      name: t.arg.string({ required: true }),
      description: t.arg.string(),
      manifest: t.arg({ type: 'JSON', required: true }),
      visibility: t.arg({ type: VisibilityEnum, description: 'Default private.' }),
      category: t.arg.string(),
      tags: t.arg.stringList(),
      allowForks: t.arg.boolean({ description: 'Whether others may fork it once public (default true).' }),
      teamId: t.arg.string({ description: 'The team it belongs to (you are one of its owners or admins); left out: it is yours.' }),
    },
    resolve: (query, _root, args, ctx) => ctx.services.workflows.createWorkflow(ctx.viewer!, args, query),
  }),
  updateWorkflow: t.prismaField({
    type: 'Workflow',
    description:
      'Updates a workflow (the fields of create, each optional): a field left out keeps its current value; null empties description, category or tags. A change of the manifest, name, description, category or tags records a new version. REST: PUT /v1/workflows/:workflowId.',
    authScopes: { authenticated: true },
    args: {
      workflowId: t.arg.string({ required: true }),
      name: t.arg.string({ description: 'Left out: unchanged. Null is refused.' }),
      description: t.arg.string({ description: 'Left out: unchanged. Null: empty.' }),
      manifest: t.arg({ type: 'JSON', description: 'Left out: unchanged. Null is refused.' }),
      visibility: t.arg({
        type: VisibilityEnum,
        description:
          'Left out: unchanged. Null is refused. Private hides it from other users, whose library entries and deployments keep it as unavailable.',
      }),
      category: t.arg.string({ description: 'Left out: unchanged. Null: empty.' }),
      tags: t.arg.stringList({ description: 'Left out: unchanged. Null: no tags.' }),
      allowForks: t.arg.boolean({ description: 'Left out: unchanged. Null is refused.' }),
      teamId: t.arg.string({
        description:
          "Left out: unchanged. A team's id moves your personal workflow into that team (you are one of its owners or admins); null moves a team workflow into your own account (team owners only).",
      }),
      expectedRevision: t.arg.int({ description: EXPECTED_REVISION }),
    },
    resolve: (query, _root, { workflowId, expectedRevision, ...input }, ctx) =>
      ctx.services.workflows.updateWorkflow(ctx.viewer!, workflowId, input, query, { expectedRevision }),
  }),
  deleteWorkflow: t.field({
    type: DeletedWorkflowRef,
    description: 'Deletes a workflow you own, with its versions. REST: DELETE /v1/workflows/:workflowId.',
    authScopes: { authenticated: true },
    args: { workflowId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.workflows.deleteWorkflow(ctx.viewer!, args.workflowId),
  }),
  forkWorkflow: t.prismaField({
    type: 'Workflow',
    description: "Copies another user's public workflow into a new private workflow you own. REST: POST /v1/workflows/:workflowId/fork.",
    authScopes: { authenticated: true },
    args: {
      workflowId: t.arg.string({ required: true }),
      name: t.arg.string({ description: 'Default: the original name followed by (copy).' }),
    },
    resolve: (query, _root, args, ctx) => ctx.services.workflows.forkWorkflow(ctx.viewer!, args.workflowId, args, query),
  }),
}));

builder.objectField(UserRef, 'workflows', (t) =>
  t.field({
    type: WorkflowPageRef,
    description: "The user's own workflows (the dashboard's nested read).",
    extensions: graphqlOnly,
    args: { limit: t.arg.int(), cursor: t.arg.string(), visibility: t.arg({ type: VisibilityEnum }) },
    resolve: (_user, args, ctx, info) => ctx.services.workflows.listWorkflows(ctx.viewer!, args, workflowPageQuery(ctx, info)),
  }),
);
