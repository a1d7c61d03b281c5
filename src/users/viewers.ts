import type { Viewer, VerifiedIdentity } from '../auth/viewer.js';
import { newId } from '../clock.js';
import { isUniqueViolation } from '../db/errors.js';
import { AppError } from '../errors.js';
import type { UserContext } from './context.js';
import { acceptableName } from './display-names.js';
import { identityHash } from './identity-hash.js';
import { identityRow } from './identities.js';
import { USER_BY_IDENTITY, USER_BY_VERIFIED_EMAIL } from './sql.js';

/** The user behind a verified identity: looked up (or created) once, then served from the cache. */

/** How long a resolved viewer is reused without asking the database again. */
const VIEWER_TTL_MS = 30_000;

function accountDeleted(): AppError {
  return new AppError(
    'UNAUTHORIZED',
    'the account of this token was deleted; sign in again to start a new, empty account',
    { reason: 'account_deleted' },
    { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
  );
}

/** Drops the cached viewer of an identity (its account deleted, or the identity removed from it). */
export function forgetIdentity(ctx: UserContext, issuer: string, subject: string): void {
  ctx.viewers.delete(`${issuer}\u0000${subject}`);
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
export async function resolveViewer(ctx: UserContext, identity: VerifiedIdentity): Promise<Viewer> {
  const key = `${identity.issuer}\u0000${identity.subject}`;
  const nowMs = Date.now();
  // Served while fresh, for a token no newer than the entry and the same e-mail address.
  const cached = ctx.viewers.get(
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
  const { viewer, deletedAt } = await lookUpViewer(ctx, identity);
  ctx.viewers.set(key, { viewer, until: nowMs + VIEWER_TTL_MS, resolvedAt: nowMs, deletedAt });
  return viewer;
}

async function readIdentity(ctx: UserContext, identity: VerifiedIdentity) {
  const [row] = await ctx.db.read<{ id: string | null; email: string | null; deletedAt: Date | null }>(USER_BY_IDENTITY, [
    identity.issuer,
    identity.subject,
    identityHash(identity.issuer, identity.subject),
  ]);
  return row;
}

async function lookUpViewer(ctx: UserContext, identity: VerifiedIdentity): Promise<{ viewer: Viewer; deletedAt: number | null }> {
  const row = await readIdentity(ctx, identity);
  const deletedAt = row?.deletedAt ? new Date(row.deletedAt).getTime() : null;
  refuseIfIssuedBeforeDeletion(identity, deletedAt);
  let user: { id: string; email: string | null } | null = row?.id ? { id: row.id, email: row.email } : null;
  if (!user) {
    try {
      user = await addIdentityOrUser(ctx, identity);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const again = await readIdentity(ctx, identity);
      if (!again?.id) throw error;
      user = { id: again.id, email: again.email };
    }
  } else if (identity.email && identity.email !== user.email) {
    // The way in used last is the source of truth for the account's e-mail address.
    user = await ctx.db.prisma.user.update({ where: { id: user.id }, data: { email: identity.email }, select: { id: true, email: true } });
  }
  return { viewer: { userId: user.id, email: user.email }, deletedAt };
}

/** A new identity: joined to the account its verified address opens, or a new account. */
async function addIdentityOrUser(ctx: UserContext, identity: VerifiedIdentity): Promise<{ id: string; email: string | null }> {
  const prisma = ctx.db.prisma;
  const now = ctx.clock.now();
  if (identity.email && identity.emailVerified) {
    const [owner] = await ctx.db.read<{ id: string }>(USER_BY_VERIFIED_EMAIL, [identity.email]);
    if (owner) {
      await prisma.signInIdentity.create({ data: identityRow(identity, owner.id, now) });
      const found = await prisma.user.findUnique({ where: { id: owner.id }, select: { id: true, email: true } });
      if (found) return found;
    }
  }
  const id = newId('usr');
  // The provider's name is a first display name only if it passes the rules of names;
  // otherwise the pseudonym stands in until the user chooses one.
  const name = identity.name ? await acceptableName(ctx, identity.name, id) : null;
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
