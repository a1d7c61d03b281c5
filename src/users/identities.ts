import type { VerifiedIdentity, Viewer } from '../auth/viewer.js';
import { newId } from '../clock.js';
import { isUniqueViolation } from '../db/errors.js';
import { AppError } from '../errors.js';
import type { ServiceDeps } from '../service-deps.js';
import { lockUser } from './sql.js';

/**
 * The ways into an account (sign-in identities): listed on the Account page, added by signing in
 * another way while signed in, removed one by one; at least one always remains.
 */

/** A verified identity's row as sign-in identities keep it (the address kept in lower case). */
export function identityRow(identity: VerifiedIdentity, userId: string, now: Date) {
  const email = identity.email ? identity.email.toLowerCase() : null;
  return {
    id: newId('sid'),
    userId,
    method: identity.method ?? 'oidc',
    issuer: identity.issuer,
    subject: identity.subject,
    email,
    emailVerified: Boolean(email && identity.emailVerified),
    label: identity.label ?? identity.email ?? null,
    createdAt: now,
  } as const;
}

export interface SignInIdentityRow {
  id: string;
  method: 'email' | 'github' | 'oidc';
  issuer: string;
  label: string | null;
  email: string | null;
  emailVerified: boolean;
  createdAt: Date;
}

const SELECT = {
  id: true,
  method: true,
  issuer: true,
  label: true,
  email: true,
  emailVerified: true,
  createdAt: true,
} as const;

export function createSignInIdentities(
  { db, clock, config }: ServiceDeps,
  hooks: { forgetIdentity(issuer: string, subject: string): void },
) {
  const prisma = db.prisma;

  return {
    /** The ways in a signed-in person can add from the Account page: those configured that add by a browser round trip. */
    addable(): ('github' | 'email')[] {
      return [...(config.github ? (['github'] as const) : []), ...(config.mail ? (['email'] as const) : [])];
    },

    /** The viewer's ways in, oldest first. */
    async list(viewer: Viewer): Promise<SignInIdentityRow[]> {
      return prisma.signInIdentity.findMany({
        where: { userId: viewer.userId },
        select: SELECT,
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      });
    },

    /**
     * Adds `identity` to the account `userId`. Already this account's: nothing changes. Another
     * account's: CONFLICT (an identity opens one account; its owner unlinks it there first).
     */
    async link(userId: string, identity: VerifiedIdentity): Promise<void> {
      const now = clock.now();
      const existing = await prisma.signInIdentity.findUnique({
        where: { issuer_subject: { issuer: identity.issuer, subject: identity.subject } },
        select: { userId: true },
      });
      if (existing?.userId === userId) return;
      if (existing)
        throw new AppError('CONFLICT', 'this way in already opens another account here: sign in with it and remove it there first', {
          reason: 'identity_taken',
        });
      try {
        await prisma.$transaction(async (tx) => {
          const locked = await tx.$queryRaw<{ id: string }[]>(lockUser(userId));
          if (locked.length === 0) throw new AppError('UNAUTHORIZED', 'the account no longer exists');
          await tx.signInIdentity.create({ data: identityRow(identity, userId, now) });
        });
      } catch (error) {
        if (isUniqueViolation(error))
          throw new AppError('CONFLICT', 'this way in already opens another account here', { reason: 'identity_taken' });
        throw error;
      }
    },

    /** Removes one of the viewer's ways in; the last one stays (CONFLICT). NOT_FOUND when it is not theirs. */
    async unlink(viewer: Viewer, identityId: string): Promise<SignInIdentityRow[]> {
      let removed: { issuer: string; subject: string } | null = null;
      await prisma.$transaction(async (tx) => {
        // Two removals at once: the second sees the first's result.
        const locked = await tx.$queryRaw<{ id: string }[]>(lockUser(viewer.userId));
        if (locked.length === 0) throw new AppError('UNAUTHORIZED', 'the account of this token no longer exists');
        const all = await tx.signInIdentity.findMany({
          where: { userId: viewer.userId },
          select: { id: true, issuer: true, subject: true },
        });
        removed = all.find((i) => i.id === identityId) ?? null;
        if (!removed) throw new AppError('NOT_FOUND', `no sign-in method '${identityId}' on your account`, { identityId });
        if (all.length <= 1)
          throw new AppError('CONFLICT', 'this is the only way into your account: add another before removing it', {
            reason: 'last_sign_in_method',
          });
        await tx.signInIdentity.delete({ where: { id: identityId } });
      });
      // Its tokens no longer find this account from the cache either.
      // (Set inside the transaction's callback, which the compiler does not follow.)
      const gone = removed as { issuer: string; subject: string } | null;
      if (gone) hooks.forgetIdentity(gone.issuer, gone.subject);
      return this.list(viewer);
    },
  };
}
