import type { Clock } from '../clock.js';
import type { Database } from '../db/index.js';
import { createAdapterFactory, type RedemptionRefused } from './adapter.js';
import { createEmailLinkStore } from './email-links.js';
import { createSessionStore } from './sessions.js';

/**
 * What the authorization server and browser sign-in (src/oauth/, a face) keep and read in the
 * database: oidc-provider's records, browser sessions, sign-in attempts, and the few reads of
 * users and deployments they need. Nothing under src/oauth/ touches the database itself.
 */

export { withOAuthRequest } from './adapter.js';
export { hashSecret, SESSION_IDLE_MS } from './sessions.js';

export interface SignInAttempt {
  id: string;
  codeVerifier: string;
  nonce: string;
  returnTo: string;
  createdAt: Date;
  /** Where it was started (absent: the OpenID provider). */
  method?: 'email' | 'github' | 'oidc';
  /** The signed-in user linking this way in to their account; absent or null for a sign-in. */
  linkTo?: string | null;
}

export function createOAuthStore(deps: { db: Database; clock: Clock }) {
  const { prisma } = deps.db;
  const { clock } = deps;
  let lastSweep = 0;
  async function sweepExpired(): Promise<number> {
    lastSweep = clock.now().getTime();
    const { count } = await prisma.oAuthRecord.deleteMany({ where: { expiresAt: { lte: clock.now() } } });
    return count;
  }

  return {
    /** oidc-provider's adapter class; `refused` makes the library's error for a second redemption. */
    adapterFactory: (refused: RedemptionRefused) => createAdapterFactory(deps.db, clock, refused),
    sessions: createSessionStore(deps),
    emailLinks: createEmailLinkStore(deps),

    /** Whether a deployment exists, and whether it is anonymous (null when it does not exist). */
    async deploymentAccess(deploymentId: string): Promise<{ ownerId: string; allowAnonymous: boolean } | null> {
      return prisma.deployment.findUnique({ where: { id: deploymentId }, select: { ownerId: true, allowAnonymous: true } });
    },

    /**
     * The deployment's name when `userId` may connect to it (their personal one, one of a team they
     * are in, or an anonymous one); null otherwise.
     */
    async deploymentNameFor(deploymentId: string, userId: string): Promise<string | null> {
      const row = await prisma.deployment.findFirst({
        where: {
          id: deploymentId,
          OR: [{ ownerId: userId, teamId: null }, { team: { members: { some: { userId } } } }, { allowAnonymous: true }],
        },
        select: { name: true },
      });
      return row?.name ?? null;
    },

    /** The user behind an account id of the authorization server, or null when the account is gone. */
    async findUser(userId: string): Promise<{ id: string; email: string | null } | null> {
      return prisma.user.findUnique({ where: { id: userId }, select: { id: true, email: true } });
    },

    /**
     * Revokes the user's other grants to `clientId` for `resource` (with their codes and tokens):
     * one connection per client and deployment.
     */
    async replaceEarlierGrants(options: { accountId: string; clientId: string; resources: string[]; keep: string }): Promise<void> {
      const grants = await prisma.oAuthRecord.findMany({
        where: { kind: 'Grant', accountId: options.accountId, payload: { path: ['clientId'], equals: options.clientId } },
        select: { id: true, payload: true },
      });
      const earlier = grants
        .map((g) => ({
          grantId: g.id.slice('Grant:'.length),
          resources: (g.payload as { resources?: Record<string, string> }).resources ?? {},
        }))
        .filter((g) => g.grantId !== options.keep && options.resources.some((resource) => resource in g.resources))
        .map((g) => g.grantId);
      if (earlier.length === 0) return;
      await prisma.oAuthRecord.deleteMany({
        where: { OR: [{ grantId: { in: earlier } }, { id: { in: earlier.map((g) => `Grant:${g}`) } }] },
      });
    },

    /** Removes every expired record (codes, tokens, grants, clients never used, interactions, sessions); returns how many. */
    sweepExpired,
    /** The same at most once a minute (called before work that adds records). */
    async sweepIfDue(): Promise<void> {
      if (clock.now().getTime() - lastSweep >= 60_000) await sweepExpired();
    },

    signInAttempts: {
      /** Records a sign-in at the provider (dropping attempts older than `ttlMs`). */
      async create(attempt: SignInAttempt, ttlMs: number): Promise<void> {
        await prisma.signInAttempt.deleteMany({ where: { createdAt: { lt: new Date(attempt.createdAt.getTime() - ttlMs) } } });
        await prisma.signInAttempt.create({ data: attempt });
      },
      /** Takes an attempt (each is used once, whatever the outcome): null when there is none. */
      async take(id: string): Promise<SignInAttempt | null> {
        const attempt = await prisma.signInAttempt.findUnique({ where: { id } });
        if (!attempt) return null;
        const { count } = await prisma.signInAttempt.deleteMany({ where: { id } });
        return count === 1 ? attempt : null;
      },
    },
  };
}

export type OAuthStore = ReturnType<typeof createOAuthStore>;
