import { builder, graphqlOnly } from '../graphql/builder.js';
import { pageRef } from '../graphql/pagination.js';
import { workflowFields, WorkflowRef } from '../workflows/graphql.js';
import { checkSummary, storedCheck, type CheckFinding, type CheckResult } from './content-check.js';
import { handleOf } from './identity.js';
import { MARKETPLACE_ITEM_SELECT, MARKETPLACE_SORTS, publishedAtOf } from './service.js';

const CheckSeverityEnum = builder.enumType('CheckSeverity', {
  description: 'block: the workflow cannot be public with it. warn: it may, and subscribers see the warning.',
  values: ['block', 'warn'] as const,
});

const CheckStatusEnum = builder.enumType('CheckStatus', {
  description:
    'passed: no findings. warnings: only warnings (publishable; shown to subscribers). blocked: at least one blocking finding (cannot be public). unchecked: recorded before the check existed.',
  values: ['passed', 'warnings', 'blocked', 'unchecked'] as const,
});

const CheckFindingRef = builder.objectRef<CheckFinding>('CheckFinding').implement({
  description: 'One finding of the publishing check (docs/marketplace.md, "The publishing check").',
  fields: (t) => ({
    rule: t.exposeString('rule', {
      description:
        'client-execution, client-file-reference, hidden-characters, secret-read, send-to-url, download-and-run or encoded-blob.',
    }),
    severity: t.field({ type: CheckSeverityEnum, resolve: (f) => f.severity }),
    field: t.exposeString('field', { description: 'Where the text is: name, description, tags[1], manifest.steps[0].name…' }),
    excerpt: t.exposeString('excerpt', { description: 'The text found, with a little context; hidden characters shown as <U+XXXX>.' }),
    message: t.exposeString('message'),
  }),
});

/** A check result, or null for content recorded before the check existed (status unchecked). */
export const ContentCheckRef = builder.objectRef<CheckResult | null>('ContentCheck').implement({
  description: "The publishing check's result on a workflow's content: what a subscriber sees on the listing.",
  fields: (t) => ({
    status: t.field({ type: CheckStatusEnum, resolve: (c) => c?.status ?? 'unchecked' }),
    summary: t.string({
      description: 'One line for a listing: "checked: no findings", "checked: 2 warnings"…',
      resolve: (c) => checkSummary(c),
    }),
    findings: t.field({ type: [CheckFindingRef], resolve: (c) => c?.findings ?? [] }),
  }),
});

export const PublicUserRef = builder.prismaObject('User', {
  variant: 'PublicUser',
  description: "A user's public identity: the id and a handle (the display name, or a pseudonym). Never the e-mail address.",
  select: { id: true, displayName: true },
  fields: (t) => ({
    userId: t.string({ resolve: (u) => u.id }),
    handle: t.string({ resolve: (u) => handleOf(u) }),
  }),
});

/**
 * A workflow as the marketplace lists it: the summary of spec 2.3 and its owner's public
 * identity, without the manifest. A variant of the Workflow prismaObject whose rows are the
 * columns it selects; the service reads a whole page, owners included, with one SQL statement
 * (sort keys and relevance Prisma cannot express), so its fields select nothing of their own.
 */
const MarketplaceWorkflowRef = builder.prismaObject('Workflow', {
  variant: 'MarketplaceWorkflow',
  description: 'A public workflow in the marketplace: the workflow summary (spec 2.3) with its owner.',
  select: MARKETPLACE_ITEM_SELECT,
  // The order of the fields is the order of the keys of every REST answer.
  fields: (t) => ({
    workflowId: t.field(workflowFields.workflowId),
    name: t.field(workflowFields.name),
    description: t.field(workflowFields.description),
    visibility: t.field(workflowFields.visibility),
    category: t.field(workflowFields.category),
    tags: t.field(workflowFields.tags),
    currentVersion: t.field(workflowFields.currentVersion),
    owner: t.field({ type: PublicUserRef, resolve: (w) => w.owner }),
    stats: t.field(workflowFields.stats),
    publishedAt: t.string({
      description: 'When the workflow last became public (the key of sort=recent).',
      resolve: (w) => publishedAtOf(w).toISOString(),
    }),
    createdAt: t.field(workflowFields.createdAt),
    updatedAt: t.field(workflowFields.updatedAt),
    check: t.field({
      type: ContentCheckRef,
      description: 'The publishing check on the current version: "checked: no findings", or the warnings.',
      resolve: (w) => storedCheck(w.checkFindings),
    }),
    workflow: t.field({
      type: WorkflowRef,
      nullable: true,
      extensions: graphqlOnly,
      description: 'The whole workflow with its manifest, while it stays public (one query for the whole page).',
      resolve: (w, _args, ctx) => ctx.loaders.readableWorkflow.load(w.id),
    }),
  }),
});

const MarketplaceSortEnum = builder.enumType('MarketplaceSort', {
  description:
    'popular: subscribers + 2 × forks. recent: when the workflow was (last) published. rating: Bayesian average (10 × 3.5 + sum of ratings) / (10 + number of ratings). Ties: the id.',
  values: MARKETPLACE_SORTS,
});

const MarketplacePageRef = pageRef('MarketplacePage', MarketplaceWorkflowRef);

builder.queryFields((t) => ({
  marketplace: t.field({
    type: MarketplacePageRef,
    description: "Every user's public workflows. REST: GET /v1/marketplace.",
    authScopes: { authenticated: true },
    args: {
      category: t.arg.string({ description: 'Only this category (case is ignored).' }),
      sort: t.arg({ type: MarketplaceSortEnum, description: 'Default popular.' }),
      limit: t.arg.int({ description: 'Page size, 1 to 100 (default 20).' }),
      cursor: t.arg.string({ description: 'The nextCursor of the previous page, with the same sort.' }),
    },
    resolve: (_root, args, ctx) => ctx.services.marketplace.browse(args),
  }),
  marketplaceSearch: t.field({
    type: MarketplacePageRef,
    description: 'Full-text search of public workflows, best match first; words match as prefixes. REST: GET /v1/marketplace/search.',
    authScopes: { authenticated: true },
    args: {
      q: t.arg.string({ required: true, description: 'The search text: 1 to 200 characters with at least one letter or digit.' }),
      category: t.arg.string({ description: 'Only this category (case is ignored).' }),
      limit: t.arg.int({ description: 'Page size, 1 to 100 (default 20).' }),
      cursor: t.arg.string({ description: 'The nextCursor of the previous page of the same search.' }),
    },
    resolve: (_root, args, ctx) => ctx.services.marketplace.search(args),
  }),
  marketplaceFeatured: t.field({
    type: MarketplacePageRef,
    description: 'A short list of well-rated, growing public workflows (at most 10, one per owner). REST: GET /v1/marketplace/featured.',
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => ctx.services.marketplace.featured(),
  }),
}));

// The publishing check on a workflow's current content, and on each recorded version.
builder.prismaObjectField(WorkflowRef, 'check', (t) =>
  t.field({
    type: ContentCheckRef,
    description: 'The publishing check on the current content (docs/marketplace.md, "The publishing check").',
    resolve: (w) => storedCheck(w.checkFindings),
  }),
);
builder.prismaObjectField('WorkflowVersion', 'check', (t) =>
  t.field({
    type: ContentCheckRef,
    description: 'The publishing check on this version, as it was recorded.',
    resolve: (v) => storedCheck(v.checkFindings),
  }),
);

builder.mutationField('checkWorkflow', (t) =>
  t.field({
    type: ContentCheckRef,
    description:
      'The publishing check on what your workflow would be after an update with these fields (each optional; none: as it is), without storing anything. REST: POST /v1/workflows/:workflowId/check.',
    authScopes: { authenticated: true },
    args: {
      workflowId: t.arg.string({ required: true }),
      name: t.arg.string(),
      description: t.arg.string(),
      manifest: t.arg({ type: 'JSON' }),
      category: t.arg.string(),
      tags: t.arg.stringList(),
    },
    resolve: (_root, { workflowId, ...input }, ctx) => ctx.services.workflows.checkWorkflow(ctx.viewer!, workflowId, input),
  }),
);

// Who wrote a workflow, by their public identity (the dashboard's marketplace page and editor).
builder.prismaObjectField(WorkflowRef, 'owner', (t) =>
  t.relation('owner', { type: PublicUserRef, description: "The owner's public identity.", extensions: graphqlOnly }),
);
