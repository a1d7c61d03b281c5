import { builder } from '../graphql/builder.js';
import { pageRef } from '../graphql/pagination.js';
import { pageItemQuery, statsOf, VisibilityEnum, WorkflowStatsRef } from '../workflows/graphql.js';
import { handleOf } from './identity.js';
import { MARKETPLACE_SORTS } from './service.js';

/**
 * A user as other users see them. Select mode keeps the row down to the id and display name,
 * so the e-mail address is not even read from the database.
 */
export const PublicUserRef = builder.prismaObject('User', {
  variant: 'PublicUser',
  description: "A user's public identity: the id and a handle (the display name, or a pseudonym). Never the e-mail address.",
  select: { id: true },
  fields: (t) => ({
    userId: t.exposeString('id'),
    handle: t.string({ select: { displayName: true }, resolve: (u) => handleOf(u) }),
  }),
});

/**
 * A workflow as the marketplace lists it: the summary of spec 2.3 and its owner's public
 * identity, without the manifest (read it with `workflow(workflowId)`).
 */
export const MarketplaceWorkflowRef = builder.prismaObject('Workflow', {
  variant: 'MarketplaceWorkflow',
  description: 'A public workflow in the marketplace: the workflow summary (spec 2.3) with its owner.',
  select: { id: true },
  fields: (t) => ({
    workflowId: t.exposeString('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    visibility: t.field({ type: VisibilityEnum, select: { visibility: true }, resolve: (w) => w.visibility }),
    category: t.exposeString('category'),
    tags: t.exposeStringList('tags'),
    currentVersion: t.exposeString('currentVersion'),
    owner: t.relation('owner', { type: PublicUserRef }),
    stats: t.field({
      type: WorkflowStatsRef,
      select: { forksCount: true, subscribersCount: true, ratingSum: true, ratingCount: true },
      resolve: statsOf,
    }),
    publishedAt: t.string({
      description: 'When the workflow last became public (the key of sort=recent).',
      select: { publishedAt: true, createdAt: true },
      resolve: (w) => (w.publishedAt ?? w.createdAt).toISOString(),
    }),
    createdAt: t.string({ select: { createdAt: true }, resolve: (w) => w.createdAt.toISOString() }),
    updatedAt: t.string({ select: { updatedAt: true }, resolve: (w) => w.updatedAt.toISOString() }),
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
    resolve: (_root, args, ctx, info) => ctx.services.marketplace.browse(args, pageItemQuery(ctx, info, 'MarketplaceWorkflow')),
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
    resolve: (_root, args, ctx, info) => ctx.services.marketplace.search(args, pageItemQuery(ctx, info, 'MarketplaceWorkflow')),
  }),
  marketplaceFeatured: t.field({
    type: MarketplacePageRef,
    description: 'A short list of well-rated, growing public workflows (at most 10, one per owner). REST: GET /v1/marketplace/featured.',
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx, info) => ctx.services.marketplace.featured(pageItemQuery(ctx, info, 'MarketplaceWorkflow')),
  }),
}));
