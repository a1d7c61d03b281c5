import { createHash } from 'node:crypto';
import type { Statement } from '../db/index.js';

/**
 * The user of an identity: read on each user's first request and then once per viewer-cache
 * period, with SQL of its own rather than through Prisma (creating and updating users still goes
 * through Prisma).
 */
/** The key of a deleted account's record: a digest, so the identity itself is not kept. */
export function identityHash(issuer: string, subject: string): string {
  return createHash('sha256').update(`${issuer}\u0000${subject}`, 'utf8').digest('hex');
}

/**
 * The user of an identity (issuer $1, subject $2; id null when there is none) and when an
 * earlier account of it was deleted (digest $3; null when never), always in one row.
 */
export const USER_BY_IDENTITY: Statement = {
  name: 'user_by_identity',
  text: `SELECT u.id, u.email, d.deleted_at AS "deletedAt"
    FROM (SELECT $1::text AS issuer, $2::text AS subject, $3::text AS hash) p
    LEFT JOIN users u ON u.issuer = p.issuer AND u.subject = p.subject
    LEFT JOIN deleted_accounts d ON d.identity_hash = p.hash`,
};

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
