import type { Prisma } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { AppError } from '../errors.js';
import type { UserContext } from './context.js';
import { identityHash } from './identity-hash.js';
import { dropReviewsOfUser, dropSubscriptionsOfUser, handTeamWorkflowsOn, lockUser } from './sql.js';
import { forgetIdentity } from './viewers.js';

/** The counts of spec 4.6: what DELETE /users/me removed. */
export interface DeletionStats {
  workflows: number;
  workflowVersions: number;
  deployments: number;
  deploymentPrompts: number;
  deploymentLookups: number;
  subscriptions: number;
  subscriberEntries: number;
  billingRecords: number;
}

export interface AccountDeletion {
  userId: string;
  deleted: true;
  deletedAt: string;
  stats: DeletionStats;
}

/**
 * Deletes the account for good (spec 4.6), in one transaction that first locks the user's row,
 * so no create of this user (quota checks take the same lock) interleaves with it. Each count
 * in `stats` is the row count of the delete that removed those rows. Counters that other
 * users' workflows keep about this user (subscribers, ratings) are corrected; forks made by
 * others stay, still naming their origin; the team workflows they wrote stay with their teams.
 */
export async function deleteAccount(ctx: UserContext, viewer: Viewer): Promise<AccountDeletion> {
  const userId = viewer.userId;
  await ctx.hooks.beforeDelete?.(userId);
  const deletedAt = ctx.clock.now();
  const { stats, identities } = await ctx.db.prisma.$transaction((tx) => deleteUserRows(tx, userId, deletedAt), {
    timeout: 30_000,
    maxWait: 10_000,
  });
  // The next request with the same token starts afresh (a new, empty account) rather than
  // finding the deleted user in the cache.
  for (const { issuer, subject } of identities) forgetIdentity(ctx, issuer, subject);
  ctx.hooks.afterDelete?.(userId);
  return { userId, deleted: true, deletedAt: deletedAt.toISOString(), stats };
}

/** The deletion's transaction: every row of the user, counted, and the identities it had. */
async function deleteUserRows(
  tx: Prisma.TransactionClient,
  userId: string,
  deletedAt: Date,
): Promise<{ stats: DeletionStats; identities: { issuer: string; subject: string }[] }> {
  const locked = await tx.$queryRaw<{ id: string }[]>(lockUser(userId));
  if (locked.length === 0) throw new AppError('UNAUTHORIZED', 'the account of this token no longer exists');
  await tx.$executeRaw(handTeamWorkflowsOn(userId));
  const ownDeployment = { deployment: { ownerId: userId } };
  const deploymentLookups = (await tx.deploymentUsage.deleteMany({ where: ownDeployment })).count;
  // Bundles of this user's deployments, and bundles in others' deployments of this user's workflows.
  const deploymentPrompts = (await tx.deploymentWorkflow.deleteMany({ where: { OR: [ownDeployment, { workflow: { ownerId: userId } }] } }))
    .count;
  const deployments = (await tx.deployment.deleteMany({ where: { ownerId: userId } })).count;
  const subscriberEntries = (await tx.libraryEntry.deleteMany({ where: { workflow: { ownerId: userId }, userId: { not: userId } } })).count;
  await tx.$executeRaw(dropSubscriptionsOfUser(userId));
  await tx.$executeRaw(dropReviewsOfUser(userId));
  const subscriptions = (await tx.libraryEntry.deleteMany({ where: { userId, sourceType: 'subscribed' } })).count;
  const workflowVersions = (await tx.workflowVersion.deleteMany({ where: { workflow: { ownerId: userId } } })).count;
  const workflows = (await tx.workflow.deleteMany({ where: { ownerId: userId } })).count;
  const billingRecords = (await tx.billingRecord.deleteMany({ where: { userId } })).count;
  const identities = await tx.signInIdentity.findMany({ where: { userId }, select: { issuer: true, subject: true } });
  // The rest (own library entries, reviews, usage counters, the subscription row, the
  // sign-in identities) goes with the user.
  await tx.user.delete({ where: { id: userId } });
  // Tokens and sign-in links issued until now open nothing any more, whichever way in they
  // name, on any instance (see lookUpViewer in viewers.ts).
  for (const { issuer, subject } of identities) {
    const hash = identityHash(issuer, subject);
    await tx.deletedAccount.upsert({
      where: { identityHash: hash },
      create: { identityHash: hash, deletedAt },
      update: { deletedAt },
    });
  }
  const stats = {
    workflows,
    workflowVersions,
    deployments,
    deploymentPrompts,
    deploymentLookups,
    subscriptions,
    subscriberEntries,
    billingRecords,
  };
  return { stats, identities };
}
