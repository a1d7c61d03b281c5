import { Prisma } from '@prisma/client';
import type { Statement } from '../db/statement.js';

/**
 * The SQL of users: the user of an identity, read on each user's first request and then once per
 * viewer-cache period, and the user with the counts of spec 2.6 are named statements (creating
 * and updating users goes through Prisma); the row locks and the corrections an account deletion
 * makes are raw statements of the services.
 */

/**
 * The user of a sign-in identity (issuer $1, subject $2; id null when there is none) and when an
 * earlier account of it was deleted (digest $3, identity-hash.ts; null when never), always in one row.
 */
export const USER_BY_IDENTITY: Statement = {
  name: 'user_by_sign_in_identity',
  text: `SELECT u.id, u.email, d.deleted_at AS "deletedAt"
    FROM (SELECT $1::text AS issuer, $2::text AS subject, $3::text AS hash) p
    LEFT JOIN sign_in_identities i ON i.issuer = p.issuer AND i.subject = p.subject
    LEFT JOIN users u ON u.id = i.user_id
    LEFT JOIN deleted_accounts d ON d.identity_hash = p.hash`,
};

/**
 * The account a verified address ($1, any case) already opens: the oldest user with a sign-in
 * identity whose issuer checked that address (identities keep addresses in lower case). None: no row.
 */
export const USER_BY_VERIFIED_EMAIL: Statement = {
  name: 'user_by_verified_email',
  text: `SELECT i.user_id AS id FROM sign_in_identities i
    WHERE i.email = lower($1) AND i.email_verified
    ORDER BY i.created_at, i.id LIMIT 1`,
};

/**
 * A user ($1) with the counts of spec 2.6, each a correlated count over an index on the owner, so
 * the cost follows the user's own rows rather than the size of the tables. Workflows are their
 * personal ones: those of their teams count toward the teams (docs/plans.md, "Quotas").
 */
export const USER_WITH_COUNTS: Statement = {
  name: 'user_with_counts',
  text: `SELECT u.id, u.email, u.created_at AS "createdAt", u.updated_at AS "updatedAt",
      (SELECT count(*) FROM workflows w WHERE w.owner_id = u.id AND w.team_id IS NULL)::int AS "workflowCount",
      (SELECT count(*) FROM deployments d WHERE d.owner_id = u.id AND d.team_id IS NULL)::int AS "deploymentCount",
      (SELECT count(*) FROM library_entries l WHERE l.user_id = u.id AND l.source_type = 'subscribed')::int AS "subscriptionCount"
    FROM users u WHERE u.id = $1`,
};

/**
 * Locks a user's row until the transaction ends (no row: the account is gone). Account deletion
 * and the billing webhook take it, so they apply one after the other; creates take it too, with
 * the plan (limits/sql.ts).
 */
export const lockUser = (userId: string) => Prisma.sql`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`;

/**
 * Holds a user's row against deletion until the transaction ends, without waiting for other
 * holders (a review's author): the deletion's lock above waits for it.
 */
export const holdUser = (userId: string) => Prisma.sql`SELECT id FROM users WHERE id = ${userId} FOR KEY SHARE`;

/**
 * The team workflows a deleted user wrote stay with their teams: their author becomes the team's
 * billing owner (docs/teams.md, "Seats and account deletion").
 */
export const handTeamWorkflowsOn = (userId: string) => Prisma.sql`
  UPDATE workflows w SET owner_id = t.billing_owner_id
  FROM teams t WHERE w.team_id = t.id AND w.owner_id = ${userId} AND t.billing_owner_id <> ${userId}`;

/** Takes the deleted user's subscriptions off the subscriber counts of other users' workflows. */
export const dropSubscriptionsOfUser = (userId: string) => Prisma.sql`
  UPDATE workflows w SET subscribers_count = GREATEST(w.subscribers_count - 1, 0)
  FROM library_entries e
  WHERE e.workflow_id = w.id AND e.user_id = ${userId} AND e.source_type = 'subscribed' AND w.owner_id <> ${userId}`;

/** Takes the deleted user's reviews off the ratings of other users' workflows. */
export const dropReviewsOfUser = (userId: string) => Prisma.sql`
  UPDATE workflows w SET rating_sum = GREATEST(w.rating_sum - r.rating, 0), rating_count = GREATEST(w.rating_count - 1, 0)
  FROM reviews r
  WHERE r.workflow_id = w.id AND r.user_id = ${userId} AND w.owner_id <> ${userId}`;

/**
 * Another user than $userId whose display name shares a key with `keys` (src/users/names.ts): one
 * probe of the GIN index on display_name_keys. No keys: no row.
 */
export const nameTakenBy = (keys: string[], userId: string) => Prisma.sql`
  SELECT id FROM users WHERE display_name_keys && ${keys}::text[] AND id <> ${userId} LIMIT 1`;

/**
 * Serialises the choices of names with any of `keys` until the transaction ends (transaction-level
 * advisory locks, in a fixed order so two choices never wait on each other).
 */
export const lockNameKeys = (keys: string[]) => Prisma.sql`
  SELECT pg_advisory_xact_lock(hashtextextended('display_name:' || k, 0)) FROM unnest(${[...keys].sort()}::text[]) AS k ORDER BY k`;

/**
 * Display names written before names had keys, oldest account first ($1 rows): a partial index of
 * migration display_name_keys holds exactly them, so a settled database answers from an empty index.
 */
export const UNSETTLED_NAMES: Statement = {
  name: 'users_unsettled_names',
  text: `SELECT id, display_name AS "displayName" FROM users
    WHERE display_name IS NOT NULL AND display_name_keys = '{}'::text[] AND display_name NOT LIKE '%@%'
    ORDER BY created_at, id LIMIT $1`,
};
