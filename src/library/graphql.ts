import type { GraphQLContext } from '../graphql/context.js';
import { builder, graphqlOnly } from '../graphql/builder.js';
import { pageRef } from '../graphql/pagination.js';
import { isAdapter } from '../manifest/adapters.js';
import { AdapterRef } from '../manifest/graphql.js';
import { UserRef } from '../users/graphql.js';
import { pageItemQuery, WorkflowRef } from '../workflows/graphql.js';
import { canRead, unavailableReason, type TeamRole } from '../workflows/service.js';
import { ContentCheckRef } from '../marketplace/graphql.js';
import type { LibraryQuery, LibraryUpdate } from './service.js';
import type { VersionChange } from './version-diff.js';

const SourceTypeEnum = builder.enumType('LibrarySourceType', {
  description: 'How a workflow came into a library: created by the user, forked by the user, or subscribed to from the marketplace.',
  values: ['owned', 'forked', 'subscribed'] as const,
});

const VersionChangeRef = builder.objectRef<VersionChange>('VersionChange').implement({
  description: 'One difference between the version a library entry uses and the latest.',
  fields: (t) => ({
    path: t.exposeString('path', { description: 'manifest.intent, manifest.steps[<step id>].name, description…' }),
    change: t.exposeString('change', { description: 'added, removed or changed.' }),
    before: t.field({ type: 'JSON', nullable: true, resolve: (c) => c.before }),
    after: t.field({ type: 'JSON', nullable: true, resolve: (c) => c.after }),
  }),
});

const LibraryUpdateRef = builder.objectRef<LibraryUpdate>('LibraryUpdate').implement({
  description:
    "A subscription's newer version, waiting for the subscriber: pinned entries (autoUpdate false) wait for every update; entries that follow updates wait only for versions the publishing check found something in (held).",
  fields: (t) => ({
    fromVersion: t.exposeString('fromVersion', { description: 'The version the entry uses now.' }),
    latestVersion: t.exposeString('latestVersion'),
    held: t.exposeBoolean('held', {
      description: 'The entry follows updates, but the check found something in this one: it waits for your accept.',
    }),
    check: t.field({ type: ContentCheckRef, description: 'The publishing check on the latest version.', resolve: (u) => u.check }),
    changes: t.field({ type: [VersionChangeRef], resolve: (u) => u.changes }),
  }),
});

/** The viewer's role in the team of an entry's workflow (none for a personal one), batched over a page. */
async function teamRolesOf(ctx: GraphQLContext, workflow: { teamId: string | null }): Promise<ReadonlyMap<string, TeamRole>> {
  const role = workflow.teamId && ctx.viewer ? await ctx.loaders.teamRole.load(workflow.teamId) : null;
  return new Map(role && workflow.teamId ? [[workflow.teamId, role]] : []);
}

const LibraryEntryRef = builder.prismaObject('LibraryEntry', {
  description: "A workflow in a user's library (spec 2.5).",
  fields: (t) => ({
    libraryId: t.exposeString('id'),
    workflowId: t.exposeString('workflowId'),
    userId: t.exposeString('userId'),
    sourceType: t.field({ type: SourceTypeEnum, resolve: (e) => e.sourceType }),
    sourceUserId: t.exposeString('sourceUserId'),
    isActive: t.exposeBoolean('isActive'),
    enabledAdapters: t.field({ type: [AdapterRef], resolve: (e) => e.enabledAdapters.filter(isAdapter) }),
    workflowName: t.string({ select: { workflow: { select: { name: true } } }, resolve: (e) => e.workflow.name }),
    workflowVersion: t.exposeString('workflowVersion'),
    autoUpdate: t.exposeBoolean('autoUpdate'),
    addedAt: t.string({ resolve: (e) => e.addedAt.toISOString() }),
    updatedAt: t.string({ resolve: (e) => e.updatedAt.toISOString() }),
    available: t.boolean({
      description:
        'Whether the workflow can be used: false while its author keeps it private or the operators suspend it (the entry is kept and comes back when it is public, or reinstated, again).',
      select: { workflow: { select: { ownerId: true, visibility: true, teamId: true, moderationState: true, moderationReason: true } } },
      resolve: async (e, _args, ctx) => unavailableReason(e.userId, e.workflow, await teamRolesOf(ctx, e.workflow)) === null,
    }),
    unavailableReason: t.string({
      nullable: true,
      description: 'Why the workflow cannot be used now (null while it can).',
      select: { workflow: { select: { ownerId: true, visibility: true, teamId: true, moderationState: true, moderationReason: true } } },
      resolve: async (e, _args, ctx) => unavailableReason(e.userId, e.workflow, await teamRolesOf(ctx, e.workflow)),
    }),
    update: t.field({
      type: LibraryUpdateRef,
      nullable: true,
      description: 'The newer version waiting for you to accept it, with what changed; null when the entry is up to date.',
      select: { workflowId: true, sourceType: true, workflowVersion: true, autoUpdate: true },
      resolve: (e, _args, ctx) => ctx.loaders.libraryUpdate.load(e),
    }),
    workflow: t.field({
      type: WorkflowRef,
      nullable: true,
      description: 'The workflow, while the viewer may read it (null while its author keeps it private).',
      extensions: graphqlOnly,
      select: (_args, _ctx, nestedSelection) => ({ workflow: nestedSelection(true) }),
      // Checked at read time, not when the entry was made: visibility may have changed since.
      resolve: async (e, _args, ctx) =>
        ctx.viewer && canRead(ctx.viewer, e.workflow, await teamRolesOf(ctx, e.workflow)) ? e.workflow : null,
    }),
  }),
});

const LibraryPageRef = pageRef('LibraryPage', LibraryEntryRef);

const RemovedEntryRef = builder.objectRef<{ workflowId: string; deleted: true }>('RemovedLibraryEntry').implement({
  description: 'The answer of every deletion: what was deleted, and deleted: true.',
  fields: (t) => ({ workflowId: t.exposeString('workflowId'), deleted: t.exposeBoolean('deleted') }),
});

const libraryListArgs = (t: Parameters<Parameters<typeof builder.queryFields>[0]>[0]) => ({
  limit: t.arg.int({ description: 'Page size, 1 to 100 (default 20).' }),
  cursor: t.arg.string(),
  activeOnly: t.arg.boolean({ description: 'Only active entries (default false).' }),
});

builder.queryField('library', (t) =>
  t.field({
    type: LibraryPageRef,
    description: "The caller's library, most recently added first. REST: GET /v1/library.",
    authScopes: { authenticated: true },
    args: libraryListArgs(t),
    resolve: (_root, args, ctx, info) =>
      ctx.services.library.listLibrary(ctx.viewer!, args, pageItemQuery(ctx, info, 'LibraryEntry') as LibraryQuery),
  }),
);

builder.objectField(UserRef, 'library', (t) =>
  t.field({
    type: LibraryPageRef,
    description: "The user's library (the dashboard's nested read).",
    extensions: graphqlOnly,
    args: { limit: t.arg.int(), cursor: t.arg.string(), activeOnly: t.arg.boolean() },
    resolve: (_user, args, ctx, info) =>
      ctx.services.library.listLibrary(ctx.viewer!, args, pageItemQuery(ctx, info, 'LibraryEntry') as LibraryQuery),
  }),
);

builder.mutationFields((t) => ({
  addToLibrary: t.prismaField({
    type: 'LibraryEntry',
    description: "Subscribes to another user's public workflow (or re-adds one of yours). REST: POST /v1/library/:workflowId.",
    authScopes: { authenticated: true },
    args: {
      workflowId: t.arg.string({ required: true }),
      enabledAdapters: t.arg({ type: [AdapterRef], description: 'Adapters this workflow is offered to (default all three).' }),
      autoUpdate: t.arg.boolean({ description: "Follow the source's new versions (default true)." }),
    },
    resolve: (query, _root, { workflowId, ...input }, ctx) => ctx.services.library.addToLibrary(ctx.viewer!, workflowId, input, query),
  }),
  updateLibraryEntry: t.prismaField({
    type: 'LibraryEntry',
    description: 'Activates or deactivates a library entry or changes its adapters. REST: PATCH /v1/library/:workflowId.',
    authScopes: { authenticated: true },
    args: { workflowId: t.arg.string({ required: true }), isActive: t.arg.boolean(), enabledAdapters: t.arg({ type: [AdapterRef] }) },
    resolve: (query, _root, { workflowId, ...input }, ctx) =>
      ctx.services.library.updateLibraryEntry(ctx.viewer!, workflowId, input, query),
  }),
  acceptLibraryUpdate: t.prismaField({
    type: 'LibraryEntry',
    description:
      "Moves a subscription to the workflow's latest version (a pinned entry stays pinned, at that version). REST: POST /v1/library/:workflowId/accept.",
    authScopes: { authenticated: true },
    args: {
      workflowId: t.arg.string({ required: true }),
      version: t.arg.string({ description: 'The version you reviewed: refused (409) when a newer one was published since.' }),
    },
    resolve: (query, _root, { workflowId, ...input }, ctx) => ctx.services.library.acceptUpdate(ctx.viewer!, workflowId, input, query),
  }),
  removeFromLibrary: t.field({
    type: RemovedEntryRef,
    description: 'Removes a workflow from your library. REST: DELETE /v1/library/:workflowId.',
    authScopes: { authenticated: true },
    args: { workflowId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.library.removeFromLibrary(ctx.viewer!, args.workflowId),
  }),
}));
