import type { Prisma } from '@prisma/client';
import type Stripe from 'stripe';
import { newId } from '../../clock.js';
import type { StripePrices } from '../../config.js';
import { effectivePlan, type PlanName } from '../../limits/plans.js';
import { recordAudit } from '../../teams/audit.js';
import { lockUser } from '../../users/sql.js';
import { isLiveStatus } from '../statuses.js';

type Db = Prisma.TransactionClient;

/** What a webhook handler gets: the open transaction its effect must be written in. */
export interface WebhookContext {
  tx: Db;
  event: Stripe.Event;
  /** When the provider created the event: the order of events, whatever order they arrive in. */
  eventAt: Date;
  prices: StripePrices;
  now: Date;
}

/** What a handler did, for the answer to the provider and for cache invalidation. */
export interface WebhookOutcome {
  userId: string | null;
  applied: boolean;
  reason?: string;
}

export type WebhookHandler = (ctx: WebhookContext) => Promise<WebhookOutcome>;

export interface SubscriptionState {
  plan?: PlanName;
  status?: string;
  customerId?: string | null;
  subscriptionId?: string | null;
  priceId?: string | null;
  currentPeriodStart?: Date | null;
  currentPeriodEnd?: Date | null;
  cancelAtPeriodEnd?: boolean;
}

export function idOf(value: string | { id: string } | null | undefined): string | null {
  if (!value) return null;
  return typeof value === 'string' ? value : value.id;
}

export function secondsToDate(value: number | null | undefined): Date | null {
  return typeof value === 'number' ? new Date(value * 1000) : null;
}

/** The user a provider object belongs to: its metadata first, then the stored customer. */
export async function findUser(tx: Db, metadataUserId: unknown, customerId: string | null): Promise<string | null> {
  if (typeof metadataUserId === 'string' && metadataUserId) {
    const user = await tx.user.findUnique({ where: { id: metadataUserId }, select: { id: true } });
    if (user) return user.id;
  }
  if (customerId) {
    const row = await tx.billingSubscription.findUnique({ where: { customerId }, select: { userId: true } });
    if (row) return row.userId;
  }
  return null;
}

/**
 * Writes a subscription state unless it is stale. The user's row is locked first so two events
 * of one user apply one after the other (and not during the deletion of the account). Stale:
 * - an event created before the newest one applied (`lastEventAt`); events of the same second
 *   apply in arrival order;
 * - an event that would revive a subscription already cancelled (cancellation is final at Stripe);
 * - an event that would replace the user's live subscription by another one that is over.
 */
export async function applySubscriptionState(ctx: WebhookContext, userId: string, state: SubscriptionState): Promise<WebhookOutcome> {
  const { tx, eventAt } = ctx;
  const locked = await tx.$queryRaw<{ id: string }[]>(lockUser(userId));
  if (locked.length === 0) return { userId: null, applied: false, reason: 'the account no longer exists' };
  const row = await tx.billingSubscription.findUnique({ where: { userId } });
  if (row?.lastEventAt && row.lastEventAt.getTime() > eventAt.getTime()) {
    return { userId, applied: false, reason: 'a newer event was already applied' };
  }
  const sameSubscription = !!row?.subscriptionId && row.subscriptionId === state.subscriptionId;
  if (sameSubscription && row.status === 'canceled' && state.status !== undefined && state.status !== 'canceled') {
    return { userId, applied: false, reason: 'the subscription was already cancelled' };
  }
  const otherSubscription = !!row?.subscriptionId && !!state.subscriptionId && row.subscriptionId !== state.subscriptionId;
  if (otherSubscription && isLiveStatus(row.status) && state.status !== undefined && !isLiveStatus(state.status)) {
    return { userId, applied: false, reason: 'the event is about an older subscription' };
  }
  const data = Object.fromEntries(
    Object.entries(state).filter(([, v]) => v !== undefined),
  ) as Prisma.BillingSubscriptionUncheckedUpdateInput;
  await tx.billingSubscription.upsert({
    where: { userId },
    create: {
      ...(data as Prisma.BillingSubscriptionUncheckedCreateInput),
      userId,
      lastEventAt: eventAt,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    },
    update: { ...data, lastEventAt: eventAt, updatedAt: ctx.now },
  });
  await recordPlanChange(ctx, userId, effectivePlan(row));
  return { userId, applied: true };
}

/**
 * After a subscription state is written: when the plan in force changed, a `plan.changed` entry
 * in the log of every team `userId` pays for (docs/teams.md, "Audit log"), in the event's transaction.
 */
async function recordPlanChange(ctx: WebhookContext, userId: string, before: PlanName): Promise<void> {
  const after = effectivePlan(await ctx.tx.billingSubscription.findUnique({ where: { userId }, select: { plan: true, status: true } }));
  if (after === before) return;
  const teams = await ctx.tx.team.findMany({ where: { billingOwnerId: userId }, select: { id: true } });
  for (const team of teams)
    await recordAudit(ctx.tx, ctx.now, {
      teamId: team.id,
      action: 'plan.changed',
      actorUserId: null,
      targetType: 'user',
      targetId: userId,
      details: { from: before, to: after, eventId: ctx.event.id },
    });
}

export async function writeRecord(
  ctx: WebhookContext,
  userId: string,
  record: { kind: string; amount?: number | null; currency?: string | null; data: Record<string, unknown> },
): Promise<void> {
  await ctx.tx.billingRecord.create({
    data: {
      id: newId('bill'),
      userId,
      kind: record.kind,
      eventId: ctx.event.id,
      amount: record.amount ?? null,
      currency: record.currency ?? null,
      data: record.data as Prisma.InputJsonValue,
      createdAt: ctx.eventAt,
    },
  });
}
