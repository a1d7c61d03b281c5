import type { Prisma } from '@prisma/client';
import type { ServiceDeps } from '../service-deps.js';
import { AppError, notFound } from '../errors.js';
import { readPlan } from '../billing/service.js';
import { isOrAre, plural } from '../text.js';
import { effectivePlan, planLimits, usagePeriod, type PlanLimits, type PlanName } from './plans.js';
import { countWithinLimit, lockTeamBillingOwner, lockUserWithPlan } from './sql.js';

/**
 * Plan quotas (spec section 8), enforced inside the caller's create transaction.
 *
 * A count followed by an insert is only safe when concurrent creates of the same user cannot
 * interleave, so `enforceQuota` first locks the user's row. Every create of that user then waits
 * for the previous one to commit and counts what it committed (READ COMMITTED sees it). Creates of
 * different users never wait for each other. The lock also orders creates with account deletion,
 * which takes the same lock.
 */

/** A Prisma client or interactive-transaction client. */
export type Db = Prisma.TransactionClient;

export type CountedQuota = 'workflows' | 'deployments' | 'subscriptions' | 'apiKeys';
export type QuotaName = CountedQuota | 'connections';

const CONNECTIONS_METRIC = 'connections';
/** The month's connections made by callers other than the owner, a part of CONNECTIONS_METRIC. */
const ANONYMOUS_CONNECTIONS_METRIC = 'connections_anonymous';

export interface QuotaUse {
  quota: QuotaName;
  plan: PlanName;
  used: number;
  limit: number;
  remaining: number;
}

interface LockedUser {
  id: string;
  plan: string | null;
  status: string | null;
}

function accountGone(): AppError {
  return new AppError('UNAUTHORIZED', 'the account of this token no longer exists');
}

/** Locks the user's row until the transaction ends and reads the plan in force, in one statement. */
async function lockUserPlan(tx: Db, userId: string): Promise<PlanName> {
  const rows = await tx.$queryRaw<LockedUser[]>(lockUserWithPlan(userId));
  const row = rows[0];
  if (!row) throw accountGone();
  return effectivePlan(row.plan === null || row.status === null ? null : { plan: row.plan, status: row.status });
}

/** What counts toward a quota; an API key past its expiry no longer counts (revoked keys are deleted). */
function countQuota(db: Db, userId: string, quota: CountedQuota, now: Date): Promise<number> {
  switch (quota) {
    case 'workflows':
      // A team's workflows count toward the team's quota (enforceTeamQuota), not their author's.
      return db.workflow.count({ where: { ownerId: userId, teamId: null } });
    case 'deployments':
      // A team's deployments count toward the team (enforceTeamDeploymentQuota), not their creator.
      return db.deployment.count({ where: { ownerId: userId, teamId: null } });
    case 'subscriptions':
      return db.libraryEntry.count({ where: { userId, sourceType: 'subscribed' } });
    case 'apiKeys':
      return db.apiKey.count({ where: { userId, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] } });
  }
}

const LIMIT_OF: Record<QuotaName, (limits: PlanLimits) => number> = {
  workflows: (l) => l.workflows,
  deployments: (l) => l.deployments,
  subscriptions: (l) => l.subscriptions,
  apiKeys: (l) => l.apiKeys,
  connections: (l) => l.connectionsPerMonth,
};

/** What each quota counts, singular and plural. */
const WHAT: Record<QuotaName, [string, string]> = {
  workflows: ['workflow', 'workflows'],
  deployments: ['deployment', 'deployments'],
  subscriptions: ['subscription', 'subscriptions'],
  apiKeys: ['API key', 'API keys'],
  connections: ['tool-endpoint connection this month', 'tool-endpoint connections this month'],
};

function exceeded(quota: QuotaName, plan: PlanName, limit: number, used: number): AppError {
  return new AppError(
    'PLAN_LIMIT_EXCEEDED',
    `the ${plan} plan allows ${plural(limit, ...WHAT[quota])} and ${used} ${isOrAre(used)} used; upgrade the plan or remove some first`,
    { quota, limit, used, plan },
  );
}

/**
 * Call inside the interactive transaction that creates the resource, before the insert:
 * `await prisma.$transaction(async (tx) => { await enforceQuota(tx, userId, 'workflows'); … create … })`.
 * Throws PLAN_LIMIT_EXCEEDED (402) when `adding` more would go over the plan's quota, and
 * UNAUTHORIZED when the account has been deleted meanwhile. A downgraded user keeps what they
 * have; only new resources over the new quota are refused.
 */
export async function enforceQuota(tx: Db, userId: string, quota: CountedQuota, adding = 1, now: Date = new Date()): Promise<QuotaUse> {
  const plan = await lockUserPlan(tx, userId);
  const limit = LIMIT_OF[quota](planLimits(plan));
  const used = await countQuota(tx, userId, quota, now);
  if (used + adding > limit) throw exceeded(quota, plan, limit, used);
  return { quota, plan, used: used + adding, limit, remaining: Math.max(limit - used - adding, 0) };
}

/**
 * The same for a team's workflows or deployments: they count toward the team, on the plan of its
 * billing owner (docs/plans.md, "Teams and seats"). Locks the team's row, then the billing owner's
 * (as enforceQuota does), so concurrent creates in one team run one after another. NOT_FOUND when
 * the team is gone.
 */
export async function enforceTeamQuota(tx: Db, teamId: string, quota: 'workflows' | 'deployments', adding = 1): Promise<QuotaUse> {
  const [team] = await tx.$queryRaw<{ billingOwnerId: string }[]>(lockTeamBillingOwner(teamId));
  if (!team) throw notFound('team', teamId);
  const plan = await lockUserPlan(tx, team.billingOwnerId);
  const limit = LIMIT_OF[quota](planLimits(plan));
  const used = quota === 'workflows' ? await tx.workflow.count({ where: { teamId } }) : await tx.deployment.count({ where: { teamId } });
  if (used + adding > limit)
    throw new AppError(
      'PLAN_LIMIT_EXCEEDED',
      `team '${teamId}' is on its billing owner's ${plan} plan, which allows ${plural(limit, ...WHAT[quota])} per team, and ${used} ${isOrAre(used)} used; the billing owner upgrades the plan, or remove some of the team's first`,
      { quota, limit, used, plan, teamId },
    );
  return { quota, plan, used: used + adding, limit, remaining: Math.max(limit - used - adding, 0) };
}

/** One conditional upsert: adds one to the counter when it stays within `limit`; the new count, or null. */
async function countWithin(tx: Db, userId: string, metric: string, period: string, limit: number): Promise<number | null> {
  const rows = await tx.$queryRaw<{ count: number }[]>(countWithinLimit(userId, metric, period, limit));
  return rows[0]?.count ?? null;
}

/**
 * Refuses an update that would record one more version of a workflow than the plan of `ownerId`
 * (its author, or a team workflow's billing owner) keeps
 * (PLAN_LIMIT_EXCEEDED, 402). Call inside the update's transaction after locking the workflow's
 * row, so concurrent updates of one workflow count each other's versions.
 */
export async function enforceVersionQuota(tx: Db, ownerId: string, workflowId: string): Promise<void> {
  const plan = await readPlan(tx, ownerId);
  const limit = planLimits(plan).versionsPerWorkflow;
  const used = await tx.workflowVersion.count({ where: { workflowId } });
  if (used + 1 > limit) {
    throw new AppError(
      'PLAN_LIMIT_EXCEEDED',
      `the ${plan} plan keeps ${limit} versions of a workflow and this one has ${used}; upgrade the plan, or create a new workflow for further changes`,
      { quota: 'versionsPerWorkflow', limit, used, plan, workflowId },
    );
  }
}

/**
 * Counts one connection of a caller other than the owner against the anonymous part of the
 * owner's month (`anonymousConnectionsPerMonth`), refusing it with PLAN_LIMIT_EXCEEDED when that
 * part is used up: anonymous clients can never use the owner's own part. Call it in the
 * connection's transaction, before `enforceConnectionQuota` (which counts the same connection in
 * the month's total); a refusal there rolls this count back too.
 */
export async function enforceAnonymousConnectionQuota(tx: Db, userId: string, now: Date = new Date()): Promise<QuotaUse> {
  const plan = await readPlan(tx, userId);
  const limit = planLimits(plan).anonymousConnectionsPerMonth;
  const counted = await countWithin(tx, userId, ANONYMOUS_CONNECTIONS_METRIC, usagePeriod(now), limit);
  if (counted === null) {
    throw new AppError(
      'PLAN_LIMIT_EXCEEDED',
      `the anonymous connections of this deployment's owner are used up this month (${limit} on the ${plan} plan); the owner's own connections are not affected`,
      { quota: 'connections', part: 'anonymous', limit, used: limit, plan },
    );
  }
  return { quota: 'connections', plan, used: counted, limit, remaining: Math.max(limit - counted, 0) };
}

/**
 * Counts one tool-endpoint connection (docs/plans.md) of the deployment owner's month and
 * refuses it with PLAN_LIMIT_EXCEEDED when the month's connections are used up. It both checks
 * and counts, atomically (one conditional upsert), so callers must not increment the counter
 * themselves. A refused connection is not counted. Works with or without a surrounding transaction.
 */
export async function enforceConnectionQuota(tx: Db, userId: string, now: Date = new Date()): Promise<QuotaUse> {
  const plan = await readPlan(tx, userId);
  const limit = planLimits(plan).connectionsPerMonth;
  const counted = await countWithin(tx, userId, CONNECTIONS_METRIC, usagePeriod(now), limit);
  if (counted === null) {
    const used = await connectionsUsed(tx, userId, now);
    throw exceeded('connections', plan, limit, used);
  }
  return { quota: 'connections', plan, used: counted, limit, remaining: Math.max(limit - counted, 0) };
}

async function connectionsUsed(db: Db, userId: string, now: Date = new Date()): Promise<number> {
  const row = await db.usageCounter.findUnique({
    where: { userId_metric_period: { userId, metric: CONNECTIONS_METRIC, period: usagePeriod(now) } },
    select: { count: true },
  });
  return row?.count ?? 0;
}

/** What the usage route reports: the month's connections, the plan's limit and what is left. */
export async function connectionUsage(
  db: Db,
  userId: string,
  now: Date = new Date(),
): Promise<{ total: number; limit: number; remaining: number }> {
  const [plan, total] = await Promise.all([readPlan(db, userId), connectionsUsed(db, userId, now)]);
  const limit = planLimits(plan).connectionsPerMonth;
  return { total, limit, remaining: Math.max(limit - total, 0) };
}

/** Every quota of the user, for GraphQL. */
async function quotaUsage(db: Db, userId: string, now: Date = new Date()): Promise<Record<QuotaName, QuotaUse>> {
  const [plan, workflows, deployments, subscriptions, apiKeys, connections] = await Promise.all([
    readPlan(db, userId),
    countQuota(db, userId, 'workflows', now),
    countQuota(db, userId, 'deployments', now),
    countQuota(db, userId, 'subscriptions', now),
    countQuota(db, userId, 'apiKeys', now),
    connectionsUsed(db, userId, now),
  ]);
  const limits = planLimits(plan);
  const use = (quota: QuotaName, used: number): QuotaUse => {
    const limit = LIMIT_OF[quota](limits);
    return { quota, plan, used, limit, remaining: Math.max(limit - used, 0) };
  };
  return {
    workflows: use('workflows', workflows),
    deployments: use('deployments', deployments),
    subscriptions: use('subscriptions', subscriptions),
    apiKeys: use('apiKeys', apiKeys),
    connections: use('connections', connections),
  };
}

/** The quotas as a service: what the faces ask about a user's use of their plan. */
export function createQuotaService({ db, clock }: ServiceDeps) {
  return {
    /** The user's use of each quota of their plan, now. */
    usage: (userId: string) => quotaUsage(db.prisma, userId, clock.now()),
  };
}
