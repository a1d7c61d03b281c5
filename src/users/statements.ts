import type { Statement } from '../db/index.js';

/**
 * The user of an identity: read on each user's first request and then once per viewer-cache
 * period, with SQL of its own rather than through Prisma (creating and updating users still goes
 * through Prisma).
 */
export const USER_BY_IDENTITY: Statement = { name: 'user_by_identity', text: 'SELECT id, email FROM users WHERE issuer = $1 AND subject = $2' };

/**
 * A user with the counts of spec 2.6, each a correlated count over an index on the owner, so the
 * cost follows the user's own rows rather than the size of the tables.
 */
export const USER_WITH_COUNTS: Statement = {
  name: 'user_with_counts',
  text: `SELECT u.id, u.email, u.created_at AS "createdAt", u.updated_at AS "updatedAt",
      (SELECT count(*) FROM workflows w WHERE w.owner_id = u.id)::int AS "workflowCount",
      (SELECT count(*) FROM deployments d WHERE d.owner_id = u.id)::int AS "deploymentCount",
      (SELECT count(*) FROM library_entries l WHERE l.user_id = u.id AND l.source_type = 'subscribed')::int AS "subscriptionCount"
    FROM users u WHERE u.id = $1`,
};
