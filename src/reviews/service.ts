import type { Prisma, PrismaClient, Review } from '@prisma/client';
import { newId } from '../clock.js';
import { isUniqueViolation } from '../db/errors.js';
import { afterPosition, newestFirstOrderBy } from '../db/keyset.js';
import { AppError, notFound, validationError, type FieldProblem } from '../errors.js';
import type { Viewer } from '../auth/viewer.js';
import { newestFirstPage, pageLimit, timeCursorPosition, type Page } from '../pagination.js';
import { withContext, type ServiceDeps } from '../service-deps.js';
import { mayRead } from '../workflows/service.js';
import { holdUser } from '../users/sql.js';
import { lockReview, ratingChange } from './sql.js';
import { TEXT_LIMITS } from '../text.js';
import { recordCreated } from '../idempotency/within-create.js';

/**
 * Reviews and ratings (spec 2.9, 8). A workflow's `ratingSum` and `ratingCount` change in the
 * same transaction as its reviews, by relative UPDATEs (`rating_sum = rating_sum + Δ`) rather
 * than a read followed by a write, so concurrent reviews never lose one another's change.
 */

const REVIEW_LIMITS = { minRating: 1, maxRating: 5, minText: TEXT_LIMITS.reviewText.min, maxText: TEXT_LIMITS.reviewText.max } as const;

/** Reviews newest first, by creation then id (the one keyset order, src/db/keyset.ts): the page and the connection alike. */
export const REVIEW_ORDER = newestFirstOrderBy('createdAt');

export type ReviewQuery = { include?: Prisma.ReviewInclude; select?: Prisma.ReviewSelect };

interface ReviewInput {
  rating: number;
  text: string;
}

type Tx = Prisma.TransactionClient;

/** Checks a review body; the text is trimmed and its length counted in characters (code points). */
function cleanReviewInput(input: ReviewInput): ReviewInput {
  const problems: FieldProblem[] = [];
  const { minRating, maxRating, minText, maxText } = REVIEW_LIMITS;
  if (!Number.isInteger(input.rating) || input.rating < minRating || input.rating > maxRating) {
    problems.push({ field: 'rating', message: `rating must be an integer from ${minRating} to ${maxRating}` });
  }
  const text = input.text.trim();
  const length = [...text].length;
  if (length < minText || length > maxText) {
    problems.push({ field: 'text', message: `text must be ${minText} to ${maxText} characters (got ${length})` });
  }
  if (problems.length) throw validationError(problems);
  return { rating: input.rating, text };
}

/** What the operations are built from: the database and the clock. */
type ReviewContext = Pick<ServiceDeps, 'db' | 'clock'>;

async function findReadableWorkflow(ctx: ReviewContext, viewer: Viewer, workflowId: string, client: Tx | PrismaClient = ctx.db.prisma) {
  const workflow = await client.workflow.findUnique({
    where: { id: workflowId },
    select: { id: true, ownerId: true, visibility: true, teamId: true },
  });
  if (!workflow || !(await mayRead(client, viewer, workflow))) throw notFound('workflow', workflowId);
  return workflow;
}

/**
 * Holds the author's row until the transaction ends. Account deletion locks it FOR UPDATE
 * before it subtracts the user's reviews from the ratings, so the two cannot interleave.
 */
async function lockAuthor(ctx: ReviewContext, tx: Tx, userId: string): Promise<void> {
  const rows = await tx.$queryRaw<{ id: string }[]>(holdUser(userId));
  if (rows.length === 0) throw new AppError('UNAUTHORIZED', 'the account of this token no longer exists');
}

/** "Used it" (spec 2.9): subscribed to it, or owns a fork of it. */
async function hasUsed(ctx: ReviewContext, tx: Tx, userId: string, workflowId: string): Promise<boolean> {
  const subscribed = await tx.libraryEntry.findFirst({ where: { userId, workflowId, sourceType: 'subscribed' }, select: { id: true } });
  if (subscribed) return true;
  const fork = await tx.workflow.findFirst({ where: { ownerId: userId, forkedFromWorkflowId: workflowId }, select: { id: true } });
  return fork !== null;
}

/** The review, locked until the transaction ends; someone else's review is refused with 403. */
async function findOwnReview(
  ctx: ReviewContext,
  tx: Tx,
  viewer: Viewer,
  workflowId: string,
  reviewId: string,
): Promise<{ rating: number }> {
  const rows = await tx.$queryRaw<{ user_id: string; rating: number }[]>(lockReview(workflowId, reviewId));
  const row = rows[0];
  if (!row) throw notFound('review', reviewId);
  if (row.user_id !== viewer.userId)
    throw new AppError('FORBIDDEN', 'only the author of this review may change or delete it', { reviewId });
  return row;
}

async function addToRating(ctx: ReviewContext, tx: Tx, workflowId: string, sumDelta: number, countDelta: number): Promise<void> {
  await tx.$executeRaw(ratingChange(workflowId, sumDelta, countDelta));
}

async function listReviews(
  ctx: ReviewContext,
  viewer: Viewer,
  workflowId: string,
  input: { limit?: number | null; cursor?: string | null },
  query: ReviewQuery = {},
): Promise<Page<Review>> {
  const limit = pageLimit(input.limit);
  await findReadableWorkflow(ctx, viewer, workflowId);
  const kind = `reviews:${workflowId}`;
  const where: Prisma.ReviewWhereInput = { workflowId };
  if (input.cursor) where.OR = afterPosition('createdAt', timeCursorPosition(input.cursor, kind));
  const rows = (await ctx.db.prisma.review.findMany({
    where,
    orderBy: REVIEW_ORDER,
    take: limit + 1,
    ...query,
  })) as Review[];
  return newestFirstPage(rows, limit, kind, 'createdAt');
}

async function createReview(ctx: ReviewContext, viewer: Viewer, workflowId: string, input: ReviewInput, query: ReviewQuery = {}) {
  const clean = cleanReviewInput(input);
  const id = newId('rev');
  const now = ctx.clock.now();
  try {
    await ctx.db.prisma.$transaction(async (tx) => {
      await lockAuthor(ctx, tx, viewer.userId);
      const workflow = await findReadableWorkflow(ctx, viewer, workflowId, tx);
      if (workflow.ownerId === viewer.userId) throw new AppError('FORBIDDEN', 'you cannot review your own workflow', { workflowId });
      if (!(await hasUsed(ctx, tx, viewer.userId, workflowId))) {
        throw new AppError('FORBIDDEN', 'only a user who has forked this workflow or subscribed to it may review it', { workflowId });
      }
      const existing = await tx.review.findUnique({
        where: { workflowId_userId: { workflowId, userId: viewer.userId } },
        select: { id: true },
      });
      if (existing) throw reviewedTwice(workflowId, existing.id);
      await tx.review.create({
        data: { id, workflowId, userId: viewer.userId, rating: clean.rating, text: clean.text, createdAt: now, updatedAt: now },
      });
      await addToRating(ctx, tx, workflowId, clean.rating, 1);
      await recordCreated(tx, `/workflows/${workflowId}/reviews/${id}`);
    });
  } catch (error) {
    // Two concurrent first reviews by one user: the unique key lets exactly one in.
    if (isUniqueViolation(error)) throw reviewedTwice(workflowId);
    throw error;
  }
  return ctx.db.prisma.review.findUniqueOrThrow({ where: { id }, ...query });
}

async function updateReview(
  ctx: ReviewContext,
  viewer: Viewer,
  workflowId: string,
  reviewId: string,
  input: ReviewInput,
  query: ReviewQuery = {},
) {
  const clean = cleanReviewInput(input);
  await ctx.db.prisma.$transaction(async (tx) => {
    await lockAuthor(ctx, tx, viewer.userId);
    await findReadableWorkflow(ctx, viewer, workflowId, tx);
    const current = await findOwnReview(ctx, tx, viewer, workflowId, reviewId);
    await tx.review.update({ where: { id: reviewId }, data: { rating: clean.rating, text: clean.text, updatedAt: ctx.clock.now() } });
    if (clean.rating !== current.rating) await addToRating(ctx, tx, workflowId, clean.rating - current.rating, 0);
  });
  return ctx.db.prisma.review.findUniqueOrThrow({ where: { id: reviewId }, ...query });
}

async function deleteReview(ctx: ReviewContext, viewer: Viewer, workflowId: string, reviewId: string) {
  await ctx.db.prisma.$transaction(async (tx) => {
    await lockAuthor(ctx, tx, viewer.userId);
    await findReadableWorkflow(ctx, viewer, workflowId, tx);
    const current = await findOwnReview(ctx, tx, viewer, workflowId, reviewId);
    await tx.review.delete({ where: { id: reviewId } });
    await addToRating(ctx, tx, workflowId, -current.rating, -1);
  });
  return { reviewId, workflowId, deleted: true as const };
}

export function createReviewService({ db, clock }: ServiceDeps) {
  return withContext({ db, clock }, { listReviews, createReview, updateReview, deleteReview });
}

function reviewedTwice(workflowId: string, reviewId?: string): AppError {
  return new AppError('CONFLICT', 'you have already reviewed this workflow: change your review instead', {
    workflowId,
    ...(reviewId ? { reviewId } : {}),
  });
}
