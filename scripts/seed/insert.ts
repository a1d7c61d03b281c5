import type { Prisma, PrismaClient } from '@prisma/client';
import { generateDataset, type SeedOptions } from './generate.js';

/** Rows per INSERT statement. */
const BATCH = 1000;

export class NotEmptyError extends Error {}

export interface SeedCounts {
  users: number;
  publicWorkflows: number;
  forks: number;
  versions: number;
  subscriptions: number;
  reviews: number;
}

type Tx = Prisma.TransactionClient;

/** The rows as one JSON document with the tables' column names (the models' fields in snake_case). */
function asJson(rows: object[]): string {
  return JSON.stringify(
    rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]))),
  );
}

async function inBatches<T extends object>(rows: T[], insert: (json: string) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) await insert(asJson(rows.slice(i, i + BATCH)));
}

/**
 * Each batch is one INSERT … SELECT over json_populate_recordset with the batch as a single bound
 * parameter: about ten times quicker than createMany's thousands of parameters, on PostgreSQL
 * and PGlite alike. Columns are listed so that defaults and the generated search document apply.
 */
async function insertAll(tx: Tx, data: ReturnType<typeof generateDataset>): Promise<void> {
  await inBatches(
    data.users,
    (json) => tx.$executeRaw`
    INSERT INTO users (id, email, display_name, created_at, updated_at)
    SELECT id, email, display_name, created_at, updated_at FROM json_populate_recordset(NULL::users, ${json}::json)`,
  );
  await inBatches(
    data.users,
    (json) => tx.$executeRaw`
    INSERT INTO sign_in_identities (id, user_id, method, issuer, subject, email, label, created_at)
    SELECT 'sid_' || id, id, 'oidc', issuer, subject, lower(email), email, created_at
    FROM json_to_recordset(${json}::json) AS u(id text, issuer text, subject text, email text, created_at timestamptz)`,
  );
  await inBatches(
    data.plans,
    (json) => tx.$executeRaw`
    INSERT INTO billing_subscriptions (user_id, plan, status, created_at, updated_at)
    SELECT user_id, plan, status, created_at, updated_at FROM json_populate_recordset(NULL::billing_subscriptions, ${json}::json)`,
  );
  await inBatches(
    data.workflows,
    (json) => tx.$executeRaw`
    INSERT INTO workflows (id, owner_id, name, description, visibility, category, tags, allow_forks, current_version, manifest,
      forked_from_workflow_id, forked_from_user_id, forked_from_version, forks_count, subscribers_count, rating_sum, rating_count,
      published_at, created_at, updated_at)
    SELECT id, owner_id, name, description, visibility, category, tags, allow_forks, current_version, manifest,
      forked_from_workflow_id, forked_from_user_id, forked_from_version, forks_count, subscribers_count, rating_sum, rating_count,
      published_at, created_at, updated_at
    FROM json_populate_recordset(NULL::workflows, ${json}::json)`,
  );
  await inBatches(
    data.versions,
    (json) => tx.$executeRaw`
    INSERT INTO workflow_versions (id, workflow_id, version, manifest, created_at)
    SELECT id, workflow_id, version, manifest, created_at FROM json_populate_recordset(NULL::workflow_versions, ${json}::json)`,
  );
  await inBatches(
    data.library,
    (json) => tx.$executeRaw`
    INSERT INTO library_entries (id, user_id, workflow_id, source_type, source_user_id, is_active, enabled_adapters, workflow_version, auto_update, added_at, updated_at)
    SELECT id, user_id, workflow_id, source_type, source_user_id, is_active, enabled_adapters, workflow_version, auto_update, added_at, updated_at
    FROM json_populate_recordset(NULL::library_entries, ${json}::json)`,
  );
  await inBatches(
    data.reviews,
    (json) => tx.$executeRaw`
    INSERT INTO reviews (id, workflow_id, user_id, rating, text, created_at, updated_at)
    SELECT id, workflow_id, user_id, rating, text, created_at, updated_at FROM json_populate_recordset(NULL::reviews, ${json}::json)`,
  );
}

/**
 * Fills an empty database with the generated marketplace. A database that already has users or
 * workflows is refused: seed rows mixed into real ones could not be told apart or removed.
 */
export async function seedDatabase(prisma: PrismaClient, options: SeedOptions): Promise<SeedCounts> {
  const [users, workflows] = await Promise.all([prisma.user.count(), prisma.workflow.count()]);
  if (users > 0 || workflows > 0) {
    throw new NotEmptyError(
      `the database is not empty (${users} users, ${workflows} workflows): the seed only fills an empty database. ` +
        'Point DATABASE_URL (after npm run db:migrate on it) or DATA_DIR at a new database and seed again.',
    );
  }
  const data = generateDataset(options);
  await prisma.$transaction((tx) => insertAll(tx, data), { timeout: 600_000, maxWait: 10_000 });
  const forks = data.workflows.filter((w) => w.forkedFromWorkflowId).length;
  return {
    users: data.users.length,
    publicWorkflows: data.workflows.length - forks,
    forks,
    versions: data.versions.length,
    subscriptions: data.library.filter((e) => e.sourceType === 'subscribed').length,
    reviews: data.reviews.length,
  };
}
