import type { Statement } from '../db/index.js';

/**
 * The user of an identity: read on each user's first request and then once per viewer-cache
 * period, with SQL of its own rather than through Prisma (creating and updating users still goes
 * through Prisma).
 */
export const USER_BY_IDENTITY: Statement = { name: 'user_by_identity', text: 'SELECT id, email FROM users WHERE issuer = $1 AND subject = $2' };
