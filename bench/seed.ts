/**
 * The benchmark's data set in a throw-away PostgreSQL database: the marketplace of `npm run seed`
 * (users, public workflows with versions, forks, subscriptions, reviews), plus deployments with
 * their bundled workflows and connection counts, which that seed does not make.
 *
 * Seed users are moved to the development issuer so that `signDevToken(dataDir, { email, sub })`
 * with their e-mail and subject resolves to the seeded row instead of creating a new user.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { seedDatabase } from '../scripts/seed/insert.js';
import { DEV_ISSUER } from '../src/auth/dev-issuer.js';
import { openDatabase, pgRunner } from '../src/db/index.js';
import { applyMigrations, listMigrations, pendingMigrations } from '../src/db/migrations.js';
import { ADAPTERS } from '../src/manifest/types.js';

export interface BenchSize {
  users: number;
  /** Public workflows; the generator adds about one fork for every ten. */
  workflows: number;
  deployments: number;
  seed: number;
}

export const DEFAULT_SIZE: BenchSize = { users: 1000, workflows: 10_000, deployments: 1000, seed: 7 };

/** Seeded users may own at most this many deployments: the pro plan's quota, which they are on. */
const MAX_DEPLOYMENTS_PER_USER = 10;
const MAX_WORKFLOWS_PER_DEPLOYMENT = 8;
/** Rows per INSERT; well below PostgreSQL's 65,535 bind parameters for every table here. */
const BATCH_ROWS = 1000;
const DAY_MS = 86_400_000;

/**
 * Stored as the database's comment once seeding has finished, so `--keep` can tell a complete
 * data set of the requested size, made by today's migrations, from a half-seeded, differently
 * sized or outdated one (a migration edited since would leave the old schema in place).
 */
function seedMark(size: BenchSize): string {
  const schema = createHash('sha256')
    .update(
      listMigrations()
        .map((m) => `${m.name}:${m.checksum}`)
        .join('\n'),
    )
    .digest('hex')
    .slice(0, 16);
  return `workflow-service bench v1 users=${size.users} workflows=${size.workflows} deployments=${size.deployments} seed=${size.seed} schema=${schema}`;
}

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** xorshift32: the deployments must come out the same for the same seed, run after run. */
function random(seed: number) {
  let state = (seed ^ 0x9e3779b9) >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  // The service's id shape (prefix, 20 base32 characters), so the rows index like real ones.
  const id = (prefix: string) => `${prefix}_${Array.from({ length: 20 }, () => '0123456789abcdefghjkmnpqrstvwxyz'[int(32)]).join('')}`;
  return { next, int, id };
}

async function insertRows(client: pg.Client, table: string, columns: string[], rows: unknown[][]): Promise<void> {
  for (let start = 0; start < rows.length; start += BATCH_ROWS) {
    const batch = rows.slice(start, start + BATCH_ROWS);
    const params: unknown[] = [];
    const tuples = batch.map((row) => `(${row.map((value) => `$${params.push(value)}`).join(', ')})`);
    await client.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`, params);
  }
}

/**
 * Deployments for the users who have something to deploy: one for each such user first, then
 * more for users with several usable workflows until `target` is reached. Each bundles up to
 * eight of its owner's workflows (owned, forked, or public ones they subscribe to) and has a few
 * days of connections this month and last.
 */
async function seedDeployments(client: pg.Client, target: number, seed: number, now: Date): Promise<number> {
  const { rows: entries } = await client.query<{ user_id: string; workflow_id: string }>(
    `SELECT e.user_id, e.workflow_id
     FROM library_entries e JOIN workflows w ON w.id = e.workflow_id
     WHERE e.source_type IN ('owned', 'forked') OR (e.source_type = 'subscribed' AND w.visibility = 'public')
     ORDER BY e.user_id, e.added_at, e.id`,
  );
  const usable = new Map<string, string[]>();
  for (const e of entries) {
    const list = usable.get(e.user_id) ?? [];
    list.push(e.workflow_id);
    usable.set(e.user_id, list);
  }
  const owners = [...usable.keys()];
  if (owners.length === 0) throw new Error('the seeded users have no workflows to deploy');

  const r = random(seed);
  const perUser = new Map<string, number>();
  const plan: string[] = [];
  for (let pass = 0; plan.length < target && pass < MAX_DEPLOYMENTS_PER_USER; pass += 1) {
    for (const owner of owners) {
      if (plan.length >= target) break;
      // Some users deploy nothing, users with several workflows often deploy more than once.
      if (pass === 0 ? r.next() < 0.3 : usable.get(owner)!.length < 3 || r.next() < 0.4) continue;
      perUser.set(owner, (perUser.get(owner) ?? 0) + 1);
      plan.push(owner);
    }
  }

  const deployments: unknown[][] = [];
  const bundled: unknown[][] = [];
  const usage: unknown[][] = [];
  const monthly = new Map<string, number>();
  const month = now.toISOString().slice(0, 7);
  const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  plan.forEach((ownerId, n) => {
    const id = r.id('dep');
    const createdAt = new Date(now.getTime() - (1 + r.int(120)) * DAY_MS - r.int(DAY_MS));
    const updatedAt = new Date(Math.min(now.getTime(), createdAt.getTime() + r.int(20) * DAY_MS));
    const status = r.next() < 0.1 ? 'inactive' : 'active';
    const candidates = [...usable.get(ownerId)!];
    const size = 1 + r.int(Math.min(MAX_WORKFLOWS_PER_DEPLOYMENT, candidates.length));
    for (let position = 0; position < size; position += 1) {
      const [workflowId] = candidates.splice(r.int(candidates.length), 1);
      bundled.push([id, workflowId, position]);
    }
    let lastConnected: number | null = null;
    const days = new Set<number>();
    for (let d = r.int(12); d > 0; d -= 1) days.add(r.int(40));
    for (const ago of days) {
      const day = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - ago * DAY_MS);
      if (day.getTime() < createdAt.getTime() - DAY_MS) continue;
      for (const adapter of ADAPTERS) {
        const count = r.next() < 0.5 ? 0 : 1 + r.int(40);
        if (count === 0) continue;
        usage.push([id, adapter, day.toISOString().slice(0, 10), count]);
        if (day.getTime() >= monthStart) monthly.set(ownerId, (monthly.get(ownerId) ?? 0) + count);
        lastConnected = Math.max(lastConnected ?? 0, Math.min(now.getTime(), day.getTime() + r.int(DAY_MS)));
      }
    }
    deployments.push([
      id,
      ownerId,
      `Deployment ${n + 1}`,
      r.next() < 0.5 ? null : `Workflows for team ${1 + r.int(50)}'s agents`,
      [...ADAPTERS],
      status,
      false,
      lastConnected === null ? null : new Date(lastConnected),
      createdAt,
      updatedAt,
    ]);
  });
  await insertRows(
    client,
    'deployments',
    [
      'id',
      'owner_id',
      'name',
      'description',
      'enabled_adapters',
      'status',
      'allow_anonymous',
      'last_connected_at',
      'created_at',
      'updated_at',
    ],
    deployments,
  );
  await insertRows(client, 'deployment_workflows', ['deployment_id', 'workflow_id', 'position'], bundled);
  await insertRows(client, 'deployment_usage', ['deployment_id', 'adapter', 'day', 'count'], usage);
  await insertRows(
    client,
    'usage_counters',
    ['user_id', 'metric', 'period', 'count'],
    [...monthly].map(([userId, count]) => [userId, 'connections', month, count]),
  );
  return deployments.length;
}

export interface PreparedDatabase {
  url: string;
  reused: boolean;
  seconds: number;
  counts: { users: number; workflows: number; deployments: number; versions: number; libraryEntries: number };
}

async function countRows(url: string): Promise<PreparedDatabase['counts']> {
  return withClient(url, async (c) => {
    const { rows } = await c.query<PreparedDatabase['counts']>(
      `SELECT (SELECT count(*)::int FROM users) AS users, (SELECT count(*)::int FROM workflows) AS workflows,
              (SELECT count(*)::int FROM deployments) AS deployments, (SELECT count(*)::int FROM workflow_versions) AS versions,
              (SELECT count(*)::int FROM library_entries) AS "libraryEntries"`,
    );
    return rows[0]!;
  });
}

/**
 * Creates (or, with `reuse`, keeps a complete earlier copy of) the benchmark database `name` on
 * the server of `adminUrl`, migrated and seeded.
 */
export async function prepareBenchDatabase(
  adminUrl: string,
  name: string,
  size: BenchSize,
  options: { reuse: boolean; log: (line: string) => void },
): Promise<PreparedDatabase> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name))
    throw new Error(`the benchmark database name must be a plain lower-case identifier (got '${name}')`);
  const url = databaseUrl(adminUrl, name);
  const started = performance.now();
  if (options.reuse) {
    const mark = await withClient(adminUrl, async (c) => {
      const { rows } = await c.query<{ mark: string | null }>(
        `SELECT shobj_description(oid, 'pg_database') AS mark FROM pg_database WHERE datname = $1`,
        [name],
      );
      return rows[0]?.mark ?? null;
    });
    if (mark === seedMark(size)) {
      const pending = await withClient(url, (c) => pendingMigrations(pgRunner(c)));
      if (pending.length === 0) {
        options.log(`reusing the seeded database ${name} (--keep)`);
        return { url, reused: true, seconds: (performance.now() - started) / 1000, counts: await countRows(url) };
      }
      options.log(`${name} misses migrations (${pending.join(', ')}): seeding it again`);
    }
  }
  await withClient(adminUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${name}`);
  });
  await withClient(url, (c) => applyMigrations(pgRunner(c)));

  const now = new Date();
  const scratch = mkdtempSync(join(tmpdir(), 'wf-bench-seed-'));
  try {
    const db = await openDatabase({ databaseUrl: url, dataDir: scratch });
    try {
      await seedDatabase(db.prisma, { workflows: size.workflows, users: size.users, seed: size.seed, now });
    } finally {
      await db.close();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  await withClient(url, async (c) => {
    await c.query('BEGIN');
    await c.query('UPDATE sign_in_identities SET issuer = $1', [DEV_ISSUER]);
    const made = await seedDeployments(c, size.deployments, size.seed, now);
    await c.query('COMMIT');
    if (made < size.deployments) options.log(`only ${made} deployments could be made (users have too few workflows)`);
    await c.query('VACUUM ANALYZE');
  });
  await withClient(adminUrl, (c) => c.query(`COMMENT ON DATABASE ${name} IS '${seedMark(size)}'`));
  return { url, reused: false, seconds: (performance.now() - started) / 1000, counts: await countRows(url) };
}

export async function dropBenchDatabase(adminUrl: string, name: string): Promise<void> {
  await withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}
