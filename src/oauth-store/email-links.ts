import type { Clock } from '../clock.js';
import type { Database } from '../db/index.js';

/**
 * One-time e-mail sign-in links (src/oauth/email-sign-in.ts): only the SHA-256 of a link's secret
 * is kept, as its id. A link is used by marking it, once, before it expires.
 */

export interface EmailLink {
  id: string;
  /** The address, in lower case. */
  email: string;
  linkTo: string | null;
  requester: string;
  returnTo: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
}

/** Links are kept this long after they expire, for the sending limits' windows and a clear "expired" page. */
const KEEP_AFTER_EXPIRY_MS = 24 * 60 * 60 * 1000;

export function createEmailLinkStore(deps: { db: Database; clock: Clock }) {
  const { prisma } = deps.db;

  return {
    /** How many links went to `email`, and how many `requester` asked for, since `since`. */
    async sentSince(email: string, requester: string, since: Date): Promise<{ toRecipient: number; fromRequester: number }> {
      const [toRecipient, fromRequester] = await Promise.all([
        prisma.emailSignInLink.count({ where: { email, createdAt: { gte: since } } }),
        prisma.emailSignInLink.count({ where: { requester, createdAt: { gte: since } } }),
      ]);
      return { toRecipient, fromRequester };
    },

    /** Records a link (dropping links long expired). */
    async create(link: Omit<EmailLink, 'usedAt'>): Promise<void> {
      await prisma.emailSignInLink.deleteMany({
        where: { expiresAt: { lt: new Date(deps.clock.now().getTime() - KEEP_AFTER_EXPIRY_MS) } },
      });
      await prisma.emailSignInLink.create({ data: link });
    },

    /** Removes a link whose message could not be sent: nothing of the attempt stays. */
    async remove(id: string): Promise<void> {
      await prisma.emailSignInLink.deleteMany({ where: { id } });
    },

    async find(id: string): Promise<EmailLink | null> {
      return prisma.emailSignInLink.findUnique({ where: { id } });
    },

    /** Marks the link used when it is unused and not expired at `now`: the link, or null when it was not. */
    async use(id: string, now: Date): Promise<EmailLink | null> {
      const { count } = await prisma.emailSignInLink.updateMany({
        where: { id, usedAt: null, expiresAt: { gt: now } },
        data: { usedAt: now },
      });
      return count === 1 ? prisma.emailSignInLink.findUnique({ where: { id } }) : null;
    },
  };
}
