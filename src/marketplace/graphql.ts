import { builder, graphqlOnly } from '../graphql/builder.js';
import { pageRef } from '../graphql/pagination.js';
import { statsOf, VisibilityEnum, WorkflowRef, WorkflowStatsRef } from '../workflows/graphql.js';
import type { PublicIdentity } from './identity.js';
import { MARKETPLACE_SORTS, type MarketplaceItem } from './service.js';

export const PublicUserRef = builder.objectRef<PublicIdentity>('PublicUser').implement({
  description: "A user's public identity: the id and a handle (the display name, or a pseudonym). Never the e-mail address.",
  fields: (t) => ({
    userId: t.exposeString('userId'),
    handle: t.exposeString('handle'),
  }),
});

/**
 * A workflow as the marketplace lists it: the summary of spec 2.3 and its owner's public
 * identity, without the manifest. The service reads a whole page, owners included, in one query.
 */
export const MarketplaceWorkflowRef = builder.objectRef<MarketplaceItem>('MarketplaceWorkflow').implement({
  description: 'A public workflow in the marketplace: the workflow summary (spec 2.3) with its owner.',
  fields: (t) => ({
    workflowId: t.exposeString('workflowId'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    visibility: t.field({ type: VisibilityEnum, resolve: (w) => w.visibility }),
    category: t.exposeString('category'),
    tags: t.exposeStringList('tags'),
    currentVersion: t.exposeString('currentVersion'),
    owner: t.field({ type: PublicUserRef, resolve: (w) => w.owner }),
    stats: t.field({ type: WorkflowStatsRef, resolve: statsOf }),
    publishedAt: t.string({
      description: 'When the workflow last became public (the key of sort=recent).',
      resolve: (w) => w.publishedAt.toISOString(),
    }),
    createdAt: t.string({ resolve: (w) => w.createdAt.toISOString() }),
    updatedAt: t.string({ resolve: (w) => w.updatedAt.toISOString() }),
    workflow: t.field({
      type: WorkflowRef,
      nullable: true,
      extensions: graphqlOnly,
      description: 'The whole workflow with its manifest, while it stays public (one query for the whole page).',
      resolve: (w, _args, ctx) => ctx.loaders.readableWorkflow.load(w.workflowId),
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
