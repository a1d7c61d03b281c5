/**
 * The scale part of the seed: grows a marketplace made by the generator (generate.ts, at most
 * BASE_WORKFLOWS public workflows) to hundreds of thousands or a million public workflows, and adds
 * deployments and a log of tool-endpoint connections (usage events), all in bulk SQL
 * (generate_series, INSERT … SELECT) inside one transaction.
 *
 * Realistic text without generating a million manifests in the process: each new workflow takes its
 * name, category and manifest from one generated workflow, its description from a second and its
 * tags from a third (the same vocabulary, in new combinations), so word frequencies, and therefore
 * what a search matches, follow the generator's. Owners are skewed (a few users own many), so are
 * subscriptions (a few workflows draw most), and about a third of subscribers leave a review; the
 * counters (subscribersCount, ratingSum, ratingCount) are recomputed from the rows they count.
 *
 * Usage events are rows of mcp_connections (one per caller, adapter, deployment and UTC day, as the
 * service records them) over the last 365 days, skewed towards busy deployments and recent days;
 * deployment_usage, usage_counters and deployments.last_connected_at are derived from them as the
 * service would have counted them.
 */
import type { Prisma } from '@prisma/client';
import { ADAPTERS } from '../../src/manifest/types.js';
import { FIRST_NAMES, LAST_NAMES, REVIEW_DETAILS, REVIEW_OPENERS } from './words.js';

/** Public workflows made by the generator itself; the rest are combined from them in SQL. */
export const BASE_WORKFLOWS = 10_000;

export interface BulkOptions {
  /** Public workflows wanted in all (the generator's included). */
  workflows: number;
  /** Users wanted in all (the generator's included). */
  users: number;
  /** Deployments to make, each bundling up to five of its owner's workflows. */
  deployments: number;
  /** Tool-endpoint connections to record; a repeated key is recorded once, so slightly fewer remain. */
  usageEvents: number;
  seed: number;
  now: Date;
}

export interface BulkCounts {
  addedUsers: number;
  addedWorkflows: number;
  addedSubscriptions: number;
  addedReviews: number;
  deployments: number;
  usageEvents: number;
}

type Tx = Prisma.TransactionClient;

async function one<T>(tx: Tx, sql: string, ...values: unknown[]): Promise<T> {
  const rows = await tx.$queryRawUnsafe<T[]>(sql, ...values);
  return rows[0]!;
}

/** An id of the service's shape (prefix, 20 characters of its alphabet: hex is a subset) from a SQL key. */
const ID = (prefix: string, key: string) => `'${prefix}_' || substr(md5(${key}), 1, 20)`;

/** A skewed pick of 0…n-1 (n a SQL expression): small numbers drawn far more often. */
const skewed = (n: string, power: number) => `least(${n} - 1, floor(${n} * power(random(), ${power})))::int`;
/** An element of a text[] parameter, uniformly. */
const pickFrom = (param: string) => `(${param}::text[])[1 + floor(random() * cardinality(${param}::text[]))::int]`;

/** Grows the marketplace to `o.workflows` public workflows and `o.users` users. */
async function growMarketplace(
  tx: Tx,
  o: BulkOptions,
  log: (line: string) => void,
): Promise<Omit<BulkCounts, 'deployments' | 'usageEvents'>> {
  const now = o.now.toISOString();
  await tx.$executeRawUnsafe(`CREATE TEMP TABLE seed_tpl ON COMMIT DROP AS
    SELECT (row_number() OVER (ORDER BY id) - 1)::int AS n, id, name, description, category, tags, manifest
    FROM workflows WHERE visibility = 'public'`);
  const { templates, users } = await one<{ templates: number; users: number }>(
    tx,
    `SELECT (SELECT count(*)::int FROM seed_tpl) AS templates, (SELECT count(*)::int FROM users) AS users`,
  );
  const addUsers = Math.max(0, o.users - users);
  const addWorkflows = Math.max(0, o.workflows - templates);
  let started = performance.now();
  const step = (what: string) => {
    log(`  ${what} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    started = performance.now();
  };

  await tx.$executeRawUnsafe(
    `INSERT INTO users (id, email, display_name, created_at, updated_at)
     SELECT ${ID('usr', `'u${o.seed}:' || g`)}, 'seed-' || (${users} + g) || '@seed.invalid',
       CASE WHEN random() < 0.6 THEN ${pickFrom('$1')} || ' ' || ${pickFrom('$2')} END, t, t
     FROM generate_series(1, ${addUsers}) g, LATERAL (SELECT $3::timestamptz - (400 + random() * 400 + g * 0) * interval '1 day' AS t) c`,
    FIRST_NAMES,
    LAST_NAMES,
    now,
  );
  await tx.$executeRawUnsafe(`INSERT INTO sign_in_identities (id, user_id, method, issuer, subject, email, label, created_at)
    SELECT 'sid_' || u.id, u.id, 'oidc', 'urn:workflow-service:seed', split_part(u.email, '@', 1), u.email, u.email, u.created_at FROM users u
    WHERE u.email LIKE '%@seed.invalid' AND NOT EXISTS (SELECT 1 FROM sign_in_identities i WHERE i.user_id = u.id)`);
  await tx.$executeRawUnsafe(`INSERT INTO billing_subscriptions (user_id, plan, status, created_at, updated_at)
    SELECT u.id, 'pro', 'active', u.created_at, u.created_at FROM users u
    WHERE NOT EXISTS (SELECT 1 FROM billing_subscriptions b WHERE b.user_id = u.id)`);
  await tx.$executeRawUnsafe(`CREATE TEMP TABLE seed_users ON COMMIT DROP AS
    SELECT (row_number() OVER (ORDER BY created_at, id) - 1)::int AS n, id FROM users`);
  await tx.$executeRawUnsafe(`CREATE UNIQUE INDEX ON seed_users (n)`);
  const allUsers = users + addUsers;
  step(`${addUsers} users`);

  // The plan of every new workflow: which generated workflows lend it text, who owns it, when.
  await tx.$executeRawUnsafe(
    `CREATE TEMP TABLE seed_new ON COMMIT DROP AS
     SELECT g AS n, ${ID('wf', `'w${o.seed}:' || g`)} AS id,
       floor(random() * ${templates})::int AS a, floor(random() * ${templates})::int AS b, floor(random() * ${templates})::int AS c,
       ${skewed(String(allUsers), 1.6)} AS owner, 2.5 + random() * 2.6 AS quality,
       $1::timestamptz - (5 + random() * 360) * interval '1 day' AS created_at, random() * 3 AS publish_delay
     FROM generate_series(0, ${addWorkflows - 1}) g`,
    now,
  );
  await tx.$executeRawUnsafe(`CREATE UNIQUE INDEX ON seed_new (n)`);
  await tx.$executeRawUnsafe(`INSERT INTO workflows (id, owner_id, name, description, visibility, category, tags, allow_forks, current_version,
      manifest, forks_count, subscribers_count, rating_sum, rating_count, published_at, created_at, updated_at)
    SELECT p.id, u.id, a.name, b.description, 'public', a.category, c.tags, p.n % 10 <> 0, '1.0.0',
      a.manifest, 0, 0, 0, 0, p.created_at + p.publish_delay * interval '1 day', p.created_at, p.created_at + p.publish_delay * interval '1 day'
    FROM seed_new p JOIN seed_tpl a ON a.n = p.a JOIN seed_tpl b ON b.n = p.b JOIN seed_tpl c ON c.n = p.c JOIN seed_users u ON u.n = p.owner`);
  step(`${addWorkflows} public workflows`);
  await tx.$executeRawUnsafe(`INSERT INTO workflow_versions (id, workflow_id, version, manifest, created_at)
    SELECT ${ID('wfv', "'v' || w.id")}, w.id, '1.0.0', w.manifest, w.created_at FROM workflows w JOIN seed_new p ON p.id = w.id`);
  await tx.$executeRawUnsafe(
    `INSERT INTO library_entries (id, user_id, workflow_id, source_type, source_user_id, is_active, enabled_adapters, workflow_version,
       auto_update, added_at, updated_at)
     SELECT ${ID('lib', "'o' || w.id")}, w.owner_id, w.id, 'owned', w.owner_id, random() < 0.9, $1::text[], '1.0.0', random() < 0.85,
       w.created_at, w.created_at
     FROM workflows w JOIN seed_new p ON p.id = w.id`,
    [...ADAPTERS],
  );
  step('their versions and owners’ library entries');

  // Two subscriptions per new workflow, skewed towards the first ones: a few draw most users.
  const { subscriptions } = await one<{ subscriptions: number }>(
    tx,
    `WITH picked AS (
       SELECT ${skewed(String(addWorkflows), 2.2)} AS w, floor(random() * ${allUsers})::int AS u, random() AS r
       FROM generate_series(1, ${2 * addWorkflows})
     ), added AS (
       INSERT INTO library_entries (id, user_id, workflow_id, source_type, source_user_id, is_active, enabled_adapters, workflow_version,
         auto_update, added_at, updated_at)
       SELECT ${ID('lib', "'s' || u.id || w.id")}, u.id, w.id, 'subscribed', w.owner_id, random() < 0.9, $1::text[], '1.0.0', random() < 0.85,
         w.published_at + k.r * ($2::timestamptz - w.published_at), w.published_at + k.r * ($2::timestamptz - w.published_at)
       FROM picked k JOIN seed_new p ON p.n = k.w JOIN workflows w ON w.id = p.id JOIN seed_users u ON u.n = k.u
       WHERE u.id <> w.owner_id
       ON CONFLICT (user_id, workflow_id) DO NOTHING
       RETURNING 1
     ) SELECT count(*)::int AS subscriptions FROM added`,
    [...ADAPTERS],
    now,
  );
  step(`${subscriptions} subscriptions`);
  const { reviews } = await one<{ reviews: number }>(
    tx,
    `WITH added AS (
       INSERT INTO reviews (id, workflow_id, user_id, rating, text, created_at, updated_at)
       SELECT ${ID('rev', "'r' || e.id")}, e.workflow_id, e.user_id,
         greatest(1, least(5, round(p.quality + (random() - 0.5) * 2)))::int, ${pickFrom('$1')} || ' ' || ${pickFrom('$2')},
         least($3::timestamptz, e.added_at + random() * interval '20 days'), least($3::timestamptz, e.added_at + random() * interval '20 days')
       FROM library_entries e JOIN seed_new p ON p.id = e.workflow_id
       WHERE e.source_type = 'subscribed' AND random() < 0.35
       RETURNING 1
     ) SELECT count(*)::int AS reviews FROM added`,
    REVIEW_OPENERS,
    REVIEW_DETAILS,
    now,
  );
  await tx.$executeRawUnsafe(`UPDATE workflows w SET subscribers_count = s.n
    FROM (SELECT e.workflow_id, count(*)::int AS n FROM library_entries e JOIN seed_new p ON p.id = e.workflow_id
          WHERE e.source_type = 'subscribed' GROUP BY e.workflow_id) s
    WHERE w.id = s.workflow_id`);
  await tx.$executeRawUnsafe(`UPDATE workflows w SET rating_sum = s.total, rating_count = s.n
    FROM (SELECT r.workflow_id, sum(r.rating)::int AS total, count(*)::int AS n FROM reviews r JOIN seed_new p ON p.id = r.workflow_id
          GROUP BY r.workflow_id) s
    WHERE w.id = s.workflow_id`);
  step(`${reviews} reviews and the counters`);
  return { addedUsers: addUsers, addedWorkflows: addWorkflows, addedSubscriptions: subscriptions, addedReviews: reviews };
}

/** Deployments of users who own workflows, then the usage events and what is derived from them. */
async function addDeploymentsAndUsage(
  tx: Tx,
  o: BulkOptions,
  log: (line: string) => void,
): Promise<{ deployments: number; usageEvents: number }> {
  const now = o.now.toISOString();
  let started = performance.now();
  const step = (what: string) => {
    log(`  ${what} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    started = performance.now();
  };
  // Owners drawn among users who own a workflow, the busiest owners most often (at most 10 each: the pro plan's quota).
  await tx.$executeRawUnsafe(`CREATE TEMP TABLE seed_owners ON COMMIT DROP AS
    SELECT (row_number() OVER (ORDER BY min(created_at), owner_id) - 1)::int AS n, owner_id AS id FROM workflows
    WHERE visibility = 'public' GROUP BY owner_id`);
  const { owners, users } = await one<{ owners: number; users: number }>(
    tx,
    `SELECT (SELECT count(*)::int FROM seed_owners) AS owners, (SELECT count(*)::int FROM seed_users) AS users`,
  );
  const { deployments } = await one<{ deployments: number }>(
    tx,
    `WITH picked AS (
       SELECT g, ${skewed(String(owners), 1.3)} AS o, random() AS r FROM generate_series(1, ${o.deployments}) g
     ), numbered AS (
       SELECT k.*, row_number() OVER (PARTITION BY k.o ORDER BY k.g) AS nth FROM picked k
     ), added AS (
       INSERT INTO deployments (id, owner_id, name, description, enabled_adapters, status, allow_anonymous, created_at, updated_at)
       SELECT ${ID('dep', `'d${o.seed}:' || k.g`)}, s.id, 'Deployment ' || k.nth,
         CASE WHEN k.r < 0.5 THEN 'Workflows for team ' || (1 + k.g % 50) || '''s agents' END, $1::text[],
         (CASE WHEN k.r > 0.9 THEN 'inactive' ELSE 'active' END)::"DeploymentStatus", k.r < 0.1,
         $2::timestamptz - (1 + k.r * 400) * interval '1 day', $2::timestamptz - (1 + k.r * 400) * interval '1 day'
       FROM numbered k JOIN seed_owners s ON s.n = k.o
       WHERE k.nth <= 10
       RETURNING 1
     ) SELECT count(*)::int AS deployments FROM added`,
    [...ADAPTERS],
    now,
  );
  await tx.$executeRawUnsafe(`INSERT INTO deployment_workflows (deployment_id, workflow_id, position)
    SELECT d.id, e.workflow_id, (e.nth - 1)::int FROM deployments d
    CROSS JOIN LATERAL (
      SELECT l.workflow_id, row_number() OVER (ORDER BY l.added_at DESC, l.id DESC) AS nth
      FROM library_entries l WHERE l.user_id = d.owner_id ORDER BY l.added_at DESC, l.id DESC LIMIT 1 + (hashtext(d.id) & 3)
    ) e`);
  await tx.$executeRawUnsafe(`CREATE TEMP TABLE seed_deployments ON COMMIT DROP AS
    SELECT (row_number() OVER (ORDER BY created_at, id) - 1)::int AS n, id, owner_id, created_at FROM deployments`);
  await tx.$executeRawUnsafe(`CREATE UNIQUE INDEX ON seed_deployments (n)`);
  step(`${deployments} deployments with their bundles`);

  const { events } = await one<{ events: number }>(
    tx,
    `WITH picked AS (
       SELECT g, ${skewed(String(deployments), 1.5)} AS d, floor(random() * ${ADAPTERS.length})::int AS a,
         floor(power(random(), 1.6) * 365)::int AS ago, random() AS r, floor(random() * ${users})::int AS u
       FROM generate_series(1, ${o.usageEvents}) g
     ), added AS (
       INSERT INTO mcp_connections (deployment_id, adapter, caller, day)
       SELECT d.id, ($1::text[])[1 + k.a],
         CASE WHEN k.r < 0.2 THEN 'address:' || substr(md5('a' || k.g), 1, 32) ELSE 'user:' || coalesce(us.id, d.owner_id) END,
         ($2::date - k.ago)
       FROM picked k JOIN seed_deployments d ON d.n = k.d LEFT JOIN seed_users us ON us.n = k.u
       ON CONFLICT DO NOTHING
       RETURNING 1
     ) SELECT count(*)::int AS events FROM added`,
    [...ADAPTERS],
    now,
  );
  step(`${events} usage events`);
  await tx.$executeRawUnsafe(`INSERT INTO deployment_usage (deployment_id, adapter, day, count)
    SELECT deployment_id, adapter, day, count(*)::int FROM mcp_connections GROUP BY deployment_id, adapter, day
    ON CONFLICT (deployment_id, adapter, day) DO UPDATE SET count = excluded.count`);
  await tx.$executeRawUnsafe(`INSERT INTO usage_counters (user_id, metric, period, count)
    SELECT d.owner_id, 'connections', to_char(u.day, 'YYYY-MM'), sum(u.count)::int
    FROM deployment_usage u JOIN deployments d ON d.id = u.deployment_id GROUP BY d.owner_id, to_char(u.day, 'YYYY-MM')
    ON CONFLICT (user_id, metric, period) DO UPDATE SET count = excluded.count`);
  // A deployment exists from before its first connection.
  await tx.$executeRawUnsafe(
    `UPDATE deployments d SET last_connected_at = least($1::timestamptz, s.last),
      created_at = least(d.created_at, s.first), updated_at = least(d.created_at, s.first)
    FROM (SELECT deployment_id, max(day)::timestamptz + interval '12 hours' AS last, min(day)::timestamptz - interval '1 hour' AS first
          FROM deployment_usage GROUP BY deployment_id) s
    WHERE d.id = s.deployment_id`,
    now,
  );
  step('daily usage, monthly counters and last connections');
  return { deployments, usageEvents: events };
}

/** Tables the bulk inserts fill: their secondary indexes are built once at the end rather than row by row. */
const BULK_TABLES = ['workflows', 'workflow_versions', 'library_entries', 'reviews', 'mcp_connections', 'deployment_usage'];

/**
 * Drops the indexes of BULK_TABLES that are neither unique nor behind a constraint (the GIN search index, the sort
 * orders' partial indexes…) and returns a function that builds them again: building an index over
 * a million rows once is several times quicker than updating it a million times.
 */
async function deferIndexes(tx: Tx): Promise<() => Promise<void>> {
  const indexes = await tx.$queryRawUnsafe<{ name: string; definition: string }[]>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
     FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
     WHERE t.relname = ANY($1::text[]) AND t.relnamespace = 'public'::regnamespace
       AND NOT i.indisunique AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
    BULK_TABLES,
  );
  for (const index of indexes) await tx.$executeRawUnsafe(`DROP INDEX ${index.name}`);
  return async () => {
    await tx.$executeRawUnsafe(`SET LOCAL maintenance_work_mem = '512MB'`);
    for (const index of indexes) await tx.$executeRawUnsafe(index.definition);
  };
}

/**
 * Grows the generated marketplace in `prisma`'s database to the sizes of `options`, in one
 * transaction, deterministically for a seed (PostgreSQL's random() seeded with setseed).
 */
export async function growDatabase(
  prisma: { $transaction: <T>(fn: (tx: Tx) => Promise<T>, options: { timeout: number; maxWait: number }) => Promise<T> },
  options: BulkOptions,
  log: (line: string) => void = () => {},
): Promise<BulkCounts> {
  return prisma.$transaction(
    async (tx) => {
      await tx.$queryRawUnsafe(`SELECT 1 AS one FROM (SELECT setseed($1::float8)) s`, ((options.seed % 997) + 1) / 1000);
      const rebuild = await deferIndexes(tx);
      const grown = await growMarketplace(tx, options, log);
      const used = options.deployments > 0 ? await addDeploymentsAndUsage(tx, options, log) : { deployments: 0, usageEvents: 0 };
      const started = performance.now();
      await rebuild();
      log(`  indexes built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      return { ...grown, ...used };
    },
    { timeout: 6 * 3_600_000, maxWait: 10_000 },
  );
}
