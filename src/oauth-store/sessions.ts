import { hash, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Database } from '../db/index.js';
import type { Viewer } from '../auth/viewer.js';

/** A browser session ends after this long without a request (spec 5.4). */
export const SESSION_IDLE_MS = 7 * 24 * 60 * 60 * 1000;
/** A session's last activity is written at most this often, so reads do not all become writes. */
const TOUCH_EVERY_MS = 60 * 1000;

export interface SessionLookup {
  viewer: Viewer;
  /** True when this request moved the session's last activity (the cookie is then renewed). */
  touched: boolean;
}

/** The SHA-256 of a cookie secret: what the database keeps, so a copy of it signs no one in. */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Server-side browser sessions: created at sign-in, ended by sign-out or 7 idle days. */
export function createSessionStore(deps: { db: Database; clock: Clock }) {
  const { prisma } = deps.db;

  return {
    /** Opens a session for the user and returns the secret the cookie carries. */
    async open(userId: string): Promise<string> {
      const now = deps.clock.now();
      // Sessions idle past the limit can never be used again; sign-in is a rare enough moment to drop them.
      await prisma.browserSession.deleteMany({ where: { lastSeenAt: { lt: new Date(now.getTime() - SESSION_IDLE_MS) } } });
      const secret = newSecret();
      await prisma.browserSession.create({ data: { id: hashSecret(secret), userId, createdAt: now, lastSeenAt: now } });
      return secret;
    },

    /** The session's user, or null when there is none or it has been idle for 7 days (then it is removed). */
    async find(secret: string): Promise<SessionLookup | null> {
      const id = hashSecret(secret);
      const row = await prisma.browserSession.findUnique({
        where: { id },
        select: { lastSeenAt: true, user: { select: { id: true, email: true } } },
      });
      if (!row) return null;
      const now = deps.clock.now().getTime();
      const idle = now - row.lastSeenAt.getTime();
      if (idle >= SESSION_IDLE_MS) {
        await prisma.browserSession.deleteMany({ where: { id } });
        return null;
      }
      let touched = false;
      if (idle >= TOUCH_EVERY_MS) {
        await prisma.browserSession.updateMany({ where: { id }, data: { lastSeenAt: new Date(now) } });
        touched = true;
      }
      const { user } = row;
      return { viewer: { userId: user.id, email: user.email }, touched };
    },

    async close(secret: string): Promise<void> {
      await prisma.browserSession.deleteMany({ where: { id: hashSecret(secret) } });
    },
  };
}
