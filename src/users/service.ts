import type { Prisma } from '@prisma/client';
import type { VerifiedIdentity } from '../auth/viewer.js';
import { BoundedCache } from '../cache/bounded.js';
import { newId } from '../clock.js';
import { isUniqueViolation } from '../db/errors.js';
import { AppError, validationError, type FieldProblem } from '../errors.js';
import type { Viewer } from '../auth/viewer.js';
import type { ServiceDeps } from '../service-deps.js';
import { identityHash } from './identity-hash.js';
import { identityRow } from './identities.js';
import { checkDisplayName, type CheckedName } from './names.js';
import {
  dropReviewsOfUser,
  dropSubscriptionsOfUser,
  lockNameKeys,
  lockUser,
  nameTakenBy,
  UNSETTLED_NAMES,
  USER_BY_IDENTITY,
  USER_BY_VERIFIED_EMAIL,
  USER_WITH_COUNTS,
} from './sql.js';

/**
 * The user of spec 2.6 as Prisma names it: the columns and the three counts (workflows owned,
 * deployments, library entries that are subscriptions). The selection of the User type, which
 * USER_WITH_COUNTS answers with one statement.
 */
export const USER_SELECT = {
  id: true,
  email: true,
  createdAt: true,
  updatedAt: true,
  _count: { select: { workflows: true, deployments: true, library: { where: { sourceType: 'subscribed' } } } },
} as const satisfies Prisma.UserSelect;

export type UserRow = Prisma.UserGetPayload<{ select: typeof USER_SELECT }>;

/** Prisma's select for the user a GraphQL selection asks for (plugin-prisma's plan). */
export type UserQuery = { select?: Prisma.UserSelect; include?: Prisma.UserInclude };

/** Whether the one statement's row answers `query`: it asks only for columns and counts of USER_SELECT. */
function answeredByStatement(query: UserQuery): boolean {
  if (query.include && Object.keys(query.include).length > 0) return false;
  const counts = USER_SELECT._count.select as Record<string, unknown>;
  for (const [key, value] of Object.entries(query.select ?? {})) {
    if (!value) continue;
    if (key === '_count') {
      const asked = typeof value === 'object' && 'select' in value ? (value.select as Record<string, unknown>) : null;
      if (!asked) return false;
      for (const [relation, count] of Object.entries(asked)) {
        if (count && JSON.stringify(count) !== JSON.stringify(counts[relation])) return false;
      }
    } else if (!(key in USER_SELECT) || value !== true) return false;
  }
  return true;
}

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

export interface UserServiceHooks {
  /** Runs before anything is deleted; throwing stops the deletion (the paid subscription is cancelled here). */
  beforeDelete?: (userId: string) => Promise<void>;
  /** Runs after the deletion committed (caches of the user are dropped here). */
  afterDelete?: (userId: string) => void;
}

function nameTaken(name: string): AppError {
  return new AppError(
    'CONFLICT',
    `displayName '${name}' is, or looks like, another user's display name; choose one that people cannot take for theirs`,
    { field: 'displayName', reason: 'name_taken' },
  );
}

function accountDeleted(): AppError {
  return new AppError(
    'UNAUTHORIZED',
    'the account of this token was deleted; sign in again to start a new, empty account',
    { reason: 'account_deleted' },
    { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
  );
}

/** The counts as USER_WITH_COUNTS names them. */
interface UserCounts {
  workflowCount: number;
  deploymentCount: number;
  subscriptionCount: number;
}

/** How long a resolved viewer is reused without asking the database again. */
const VIEWER_TTL_MS = 30_000;
const VIEWER_CACHE_SIZE = 10_000;

export function createUserService({ db, clock }: ServiceDeps, hooks: UserServiceHooks = {}) {
  const prisma = db.prisma;
  // issuer + subject → viewer. Saves a query on every request; an account deleted on another
  // instance is noticed within the TTL (writes check the user row under lock meanwhile, and
  // /users/me answers 401). `resolvedAt` is when the entry was read: a token issued after it (a
  // new sign-in) reads afresh. `deletedAt` is when an earlier account of the identity was deleted.
  const viewers = new BoundedCache<string, { viewer: Viewer; until: number; resolvedAt: number; deletedAt: number | null }>(
    'viewers',
    VIEWER_CACHE_SIZE,
  );

  /** Drops the cached viewer of an identity (its account deleted, or the identity removed from it). */
  function forgetIdentity(issuer: string, subject: string): void {
    viewers.delete(`${issuer}\u0000${subject}`);
  }

  /**
   * A token issued before its identity's account was deleted opens nothing, not even a later
   * account of the same identity; only a new sign-in does. iat has whole seconds, so a token of the
   * deletion's own second is refused too, and one without iat cannot show it is newer.
   */
  function refuseIfIssuedBeforeDeletion(identity: VerifiedIdentity, deletedAt: number | null): void {
    if (deletedAt === null) return;
    if (typeof identity.issuedAt !== 'number' || identity.issuedAt * 1000 <= deletedAt) throw accountDeleted();
  }

  /**
   * The user behind a verified ID token or a finished sign-in, created by their first
   * authenticated request. An identity not yet known whose issuer verified its address joins the
   * account that address already opens (docs/operations.md, "Browser sign-in"); otherwise a new
   * account is made. Concurrent first requests race on the (issuer, subject) unique key of sign-in
   * identities: the losers read the winner's row, so exactly one user exists and every request succeeds.
   */
  async function resolveViewer(identity: VerifiedIdentity): Promise<Viewer> {
    const key = `${identity.issuer}\u0000${identity.subject}`;
    const nowMs = Date.now();
    // Served while fresh, for a token no newer than the entry and the same e-mail address.
    const cached = viewers.get(
      key,
      (entry) =>
        entry.until > nowMs &&
        !(typeof identity.issuedAt === 'number' && identity.issuedAt * 1000 > entry.resolvedAt) &&
        (!identity.email || identity.email === entry.viewer.email),
    );
    if (cached) {
      refuseIfIssuedBeforeDeletion(identity, cached.deletedAt);
      return cached.viewer;
    }
    const { viewer, deletedAt } = await lookUpViewer(identity);
    viewers.set(key, { viewer, until: nowMs + VIEWER_TTL_MS, resolvedAt: nowMs, deletedAt });
    return viewer;
  }

  async function readIdentity(identity: VerifiedIdentity) {
    const [row] = await db.read<{ id: string | null; email: string | null; deletedAt: Date | null }>(USER_BY_IDENTITY, [
      identity.issuer,
      identity.subject,
      identityHash(identity.issuer, identity.subject),
    ]);
    return row;
  }

  async function lookUpViewer(identity: VerifiedIdentity): Promise<{ viewer: Viewer; deletedAt: number | null }> {
    const row = await readIdentity(identity);
    const deletedAt = row?.deletedAt ? new Date(row.deletedAt).getTime() : null;
    refuseIfIssuedBeforeDeletion(identity, deletedAt);
    let user: { id: string; email: string | null } | null = row?.id ? { id: row.id, email: row.email } : null;
    if (!user) {
      try {
        user = await addIdentityOrUser(identity);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        const again = await readIdentity(identity);
        if (!again?.id) throw error;
        user = { id: again.id, email: again.email };
      }
    } else if (identity.email && identity.email !== user.email) {
      // The way in used last is the source of truth for the account's e-mail address.
      user = await prisma.user.update({ where: { id: user.id }, data: { email: identity.email }, select: { id: true, email: true } });
    }
    return { viewer: { userId: user.id, email: user.email }, deletedAt };
  }

  /** A new identity: joined to the account its verified address opens, or a new account. */
  async function addIdentityOrUser(identity: VerifiedIdentity): Promise<{ id: string; email: string | null }> {
    const now = clock.now();
    if (identity.email && identity.emailVerified) {
      const [owner] = await db.read<{ id: string }>(USER_BY_VERIFIED_EMAIL, [identity.email]);
      if (owner) {
        await prisma.signInIdentity.create({ data: identityRow(identity, owner.id, now) });
        const found = await prisma.user.findUnique({ where: { id: owner.id }, select: { id: true, email: true } });
        if (found) return found;
      }
    }
    const id = newId('usr');
    // The provider's name is a first display name only if it passes the rules of names;
    // otherwise the pseudonym stands in until the user chooses one.
    const name = identity.name ? await acceptableName(identity.name, id) : null;
    return prisma.$transaction(async (tx) => {
      const created = await tx.user.create({
        data: {
          id,
          email: identity.email,
          displayName: name?.name ?? null,
          displayNameKeys: name?.keys ?? [],
          createdAt: now,
          updatedAt: now,
        },
        select: { id: true, email: true },
      });
      await tx.signInIdentity.create({ data: identityRow(identity, id, now) });
      return created;
    });
  }

  /**
   * The viewer's user as `query` asks for it. The dashboard reads it on every load, so what the
   * User type selects (USER_SELECT's columns and counts) is read with one statement of its own;
   * a selection beyond it is read through Prisma.
   */
  async function getMe(viewer: Viewer, query: UserQuery = { select: USER_SELECT }): Promise<Pick<UserRow, 'id'>> {
    if (!answeredByStatement(query)) {
      const user = await prisma.user.findUnique({ where: { id: viewer.userId }, ...query });
      if (!user) throw new AppError('UNAUTHORIZED', 'the account of this token no longer exists');
      return user;
    }
    const [user] = await db.read<Pick<UserRow, 'id' | 'email' | 'createdAt' | 'updatedAt'> & UserCounts>(USER_WITH_COUNTS, [viewer.userId]);
    if (!user) throw new AppError('UNAUTHORIZED', 'the account of this token no longer exists');
    const row: UserRow = {
      id: user.id,
      email: user.email,
      createdAt: user.createdAt,
      updatedAt: user.updatedAt,
      _count: { workflows: user.workflowCount, deployments: user.deploymentCount, library: user.subscriptionCount },
    };
    return row;
  }

  /**
   * Deletes the account for good (spec 4.6), in one transaction that first locks the user's row,
   * so no create of this user (quota checks take the same lock) interleaves with it. Each count
   * in `stats` is the row count of the delete that removed those rows. Counters that other
   * users' workflows keep about this user (subscribers, ratings) are corrected; forks made by
   * others stay, still naming their origin.
   */
  async function deleteAccount(viewer: Viewer): Promise<AccountDeletion> {
    const userId = viewer.userId;
    await hooks.beforeDelete?.(userId);
    const deletedAt = clock.now();
    let identities: { issuer: string; subject: string }[] = [];
    const stats = await prisma.$transaction(
      async (tx) => {
        const locked = await tx.$queryRaw<{ id: string }[]>(lockUser(userId));
        if (locked.length === 0) throw new AppError('UNAUTHORIZED', 'the account of this token no longer exists');
        const ownDeployment = { deployment: { ownerId: userId } };
        const deploymentLookups = (await tx.deploymentUsage.deleteMany({ where: ownDeployment })).count;
        // Bundles of this user's deployments, and bundles in others' deployments of this user's workflows.
        const deploymentPrompts = (
          await tx.deploymentWorkflow.deleteMany({ where: { OR: [ownDeployment, { workflow: { ownerId: userId } }] } })
        ).count;
        const deployments = (await tx.deployment.deleteMany({ where: { ownerId: userId } })).count;
        const subscriberEntries = (await tx.libraryEntry.deleteMany({ where: { workflow: { ownerId: userId }, userId: { not: userId } } }))
          .count;
        await tx.$executeRaw(dropSubscriptionsOfUser(userId));
        await tx.$executeRaw(dropReviewsOfUser(userId));
        const subscriptions = (await tx.libraryEntry.deleteMany({ where: { userId, sourceType: 'subscribed' } })).count;
        const workflowVersions = (await tx.workflowVersion.deleteMany({ where: { workflow: { ownerId: userId } } })).count;
        const workflows = (await tx.workflow.deleteMany({ where: { ownerId: userId } })).count;
        const billingRecords = (await tx.billingRecord.deleteMany({ where: { userId } })).count;
        identities = await tx.signInIdentity.findMany({ where: { userId }, select: { issuer: true, subject: true } });
        // The rest (own library entries, reviews, usage counters, the subscription row, the
        // sign-in identities) goes with the user.
        await tx.user.delete({ where: { id: userId } });
        // Tokens and sign-in links issued until now open nothing any more, whichever way in they
        // name, on any instance (see lookUpViewer).
        for (const { issuer, subject } of identities) {
          const hash = identityHash(issuer, subject);
          await tx.deletedAccount.upsert({
            where: { identityHash: hash },
            create: { identityHash: hash, deletedAt },
            update: { deletedAt },
          });
        }
        return {
          workflows,
          workflowVersions,
          deployments,
          deploymentPrompts,
          deploymentLookups,
          subscriptions,
          subscriberEntries,
          billingRecords,
        };
      },
      { timeout: 30_000, maxWait: 10_000 },
    );
    // The next request with the same token starts afresh (a new, empty account) rather than
    // finding the deleted user in the cache.
    for (const { issuer, subject } of identities) forgetIdentity(issuer, subject);
    hooks.afterDelete?.(userId);
    return { userId, deleted: true, deletedAt: deletedAt.toISOString(), stats };
  }

  /**
   * Sets the viewer's public display name (shown as the author of workflows and reviews); an empty
   * name clears it, and a pseudonym stands in. Taken from the identity provider's `name` claim when
   * the account is made; after that only this changes it.
   */
  async function setDisplayName(viewer: Viewer, displayName: string, query: UserQuery = {}) {
    const problems: FieldProblem[] = [];
    const checked = checkDisplayName(displayName, viewer.userId, problems);
    if (problems.length > 0) throw validationError(problems);
    const updated = await prisma.$transaction(async (tx) => {
      // Two users choosing confusable names at once: the second waits for the first and sees it.
      await tx.$executeRaw(lockNameKeys(checked.keys));
      const [taken] = await tx.$queryRaw<{ id: string }[]>(nameTakenBy(checked.keys, viewer.userId));
      if (taken) throw nameTaken(checked.name!);
      return tx.user.updateMany({ where: { id: viewer.userId }, data: { displayName: checked.name, displayNameKeys: checked.keys } });
    });
    if (updated.count === 0) throw new AppError('UNAUTHORIZED', 'the account of this token no longer exists');
    return prisma.user.findUniqueOrThrow({ where: { id: viewer.userId }, ...query });
  }

  /** `raw` as the display name of user `userId` when every rule lets it be, else null. */
  async function acceptableName(raw: string, userId: string): Promise<CheckedName | null> {
    const problems: FieldProblem[] = [];
    const checked = checkDisplayName(raw, userId, problems);
    if (problems.length > 0 || !checked.name) return null;
    const [taken] = await db.prisma.$queryRaw<{ id: string }[]>(nameTakenBy(checked.keys, userId));
    return taken ? null : checked;
  }

  /**
   * Gives every display name written before names had keys its keys, oldest account first, and
   * clears the names that break a rule of names: hidden characters, the form of a handle, or a
   * collision with an older account's name (whose owner keeps it). Runs at start; a settled
   * database has nothing to do (one indexed read). Bounded: `maxRows` per call.
   */
  async function settleNameKeys(maxRows = 100_000): Promise<{ kept: number; cleared: number }> {
    let kept = 0;
    let cleared = 0;
    while (kept + cleared < maxRows) {
      const rows = await db.read<{ id: string; displayName: string }>(UNSETTLED_NAMES, [Math.min(500, maxRows - kept - cleared)]);
      if (rows.length === 0) break;
      for (const row of rows) {
        const name = await acceptableName(row.displayName, row.id);
        if (name) kept += 1;
        else cleared += 1;
        await prisma.user.updateMany({
          where: { id: row.id },
          data: name ? { displayName: name.name, displayNameKeys: name.keys } : { displayName: null, displayNameKeys: [] },
        });
      }
    }
    return { kept, cleared };
  }

  return { resolveViewer, forgetIdentity, getMe, setDisplayName, settleNameKeys, deleteAccount };
}
