import { builder, graphqlOnly } from '../graphql/builder.js';
import { pageRef } from '../graphql/pagination.js';
import { PublicUserRef } from '../marketplace/graphql.js';
import { pageItemQuery, WorkflowRef } from '../workflows/graphql.js';
import { REVIEW_ORDER, type ReviewQuery } from './service.js';

const ReviewRef = builder.prismaObject('Review', {
  description: 'A review of a workflow by a user who forked it or subscribed to it (spec 2.9).',
  select: { id: true },
  fields: (t) => ({
    reviewId: t.exposeString('id'),
    workflowId: t.exposeString('workflowId'),
    // Loaded in the reviews' own query; only the id and display name of the author are read.
    author: t.relation('user', { type: PublicUserRef }),
    rating: t.exposeInt('rating', { description: 'An integer from 1 to 5.' }),
    text: t.exposeString('text', { description: '10 to 2000 characters.' }),
    createdAt: t.string({ select: { createdAt: true }, resolve: (r) => r.createdAt.toISOString() }),
    updatedAt: t.string({ select: { updatedAt: true }, resolve: (r) => r.updatedAt.toISOString() }),
  }),
});

const ReviewPageRef = pageRef('ReviewPage', ReviewRef);

const DeletedReviewRef = builder.objectRef<{ reviewId: string; workflowId: string; deleted: true }>('DeletedReview').implement({
  fields: (t) => ({ reviewId: t.exposeString('reviewId'), workflowId: t.exposeString('workflowId'), deleted: t.exposeBoolean('deleted') }),
});

// A Relay connection folded into the parent workflow's query by plugin-prisma, so reviews of
// many workflows in one response cost one query per level, not one per workflow.
builder.prismaObjectField(WorkflowRef, 'reviews', (t) =>
  t.relatedConnection('reviews', {
    description: 'Reviews of this workflow, newest first.',
    cursor: 'id',
    totalCount: true,
    query: () => ({ orderBy: REVIEW_ORDER }),
    extensions: graphqlOnly,
  }),
);

builder.queryField('workflowReviews', (t) =>
  t.field({
    type: ReviewPageRef,
    description: 'Reviews of a workflow you may read, newest first. REST: GET /v1/workflows/:workflowId/reviews.',
    authScopes: { authenticated: true },
    args: {
      workflowId: t.arg.string({ required: true }),
      limit: t.arg.int({ description: 'Page size, 1 to 100 (default 20).' }),
      cursor: t.arg.string(),
    },
    resolve: (_root, { workflowId, ...args }, ctx, info) =>
      ctx.services.reviews.listReviews(ctx.viewer!, workflowId, args, pageItemQuery(ctx, info, 'Review') as ReviewQuery),
  }),
);

builder.mutationFields((t) => ({
  createReview: t.prismaField({
    type: 'Review',
    description:
      'Reviews a workflow you forked or subscribed to (not your own); one review per user. REST: POST /v1/workflows/:workflowId/reviews.',
    authScopes: { authenticated: true },
    args: {
      workflowId: t.arg.string({ required: true }),
      rating: t.arg.int({ required: true, description: 'An integer from 1 to 5.' }),
      text: t.arg.string({ required: true, description: '10 to 2000 characters.' }),
    },
    resolve: (query, _root, { workflowId, ...input }, ctx) => ctx.services.reviews.createReview(ctx.viewer!, workflowId, input, query),
  }),
  updateReview: t.prismaField({
    type: 'Review',
    description: 'Replaces the rating and text of your review. REST: PUT /v1/workflows/:workflowId/reviews/:reviewId.',
    authScopes: { authenticated: true },
    args: {
      workflowId: t.arg.string({ required: true }),
      reviewId: t.arg.string({ required: true }),
      rating: t.arg.int({ required: true }),
      text: t.arg.string({ required: true }),
    },
    resolve: (query, _root, { workflowId, reviewId, ...input }, ctx) =>
      ctx.services.reviews.updateReview(ctx.viewer!, workflowId, reviewId, input, query),
  }),
  deleteReview: t.field({
    type: DeletedReviewRef,
    description: 'Deletes your review. REST: DELETE /v1/workflows/:workflowId/reviews/:reviewId.',
    authScopes: { authenticated: true },
    args: { workflowId: t.arg.string({ required: true }), reviewId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.reviews.deleteReview(ctx.viewer!, args.workflowId, args.reviewId),
  }),
}));
