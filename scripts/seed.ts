/**
 * npm run seed -- [--workflows 1000] [--users N] [--deployments N] [--usage-events N] [--seed 1]
 *
 * Fills an empty database with a realistic marketplace for demos and benchmarks: users (issuer
 * urn:workflow-service:seed), public workflows with versions, forks, subscriptions and reviews.
 * Up to 10,000 public workflows are made one by one by the generator; beyond that, and for
 * deployments and usage events, the generated rows are combined in bulk SQL (seed/bulk.ts), so a
 * million workflows and ten million usage events take minutes, not hours.
 * Uses PostgreSQL when DATABASE_URL is set (migrate it first with npm run db:migrate), otherwise
 * the embedded database under DATA_DIR (default ./.data). The same options give the same data.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import { BASE_WORKFLOWS, growDatabase } from './seed/bulk.js';
import { NotEmptyError, seedDatabase } from './seed/insert.js';

const USAGE = `usage: npm run seed -- [--workflows N] [--users N] [--deployments N] [--usage-events N] [--seed N]

  --workflows     public workflows to create (default 1000, at most 1000000; beyond ${BASE_WORKFLOWS} combined in bulk SQL)
  --users         users to create (default workflows / 10, at least 2)
  --deployments   deployments to create, bundling their owners' workflows (default 0)
  --usage-events  tool-endpoint connections to record over the last 365 days (default 0, at most 100000000;
                  needs --deployments)
  --seed          random seed; the same seed gives the same data (default 1)

Seeds PostgreSQL at DATABASE_URL, or the embedded database under DATA_DIR. The database must be empty.`;

function fail(problem: string, code = 2): never {
  process.stderr.write(`${problem}\n\n${USAGE}\n`);
  process.exit(code);
}

function count(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) fail(`--${name} must be a whole number (got '${value}')`);
  const n = Number(value);
  if (n < min || n > max) fail(`--${name} must be from ${min} to ${max} (got ${n})`);
  return n;
}

async function main(): Promise<void> {
  let values: { workflows?: string; users?: string; deployments?: string; 'usage-events'?: string; seed?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      options: {
        workflows: { type: 'string' },
        users: { type: 'string' },
        deployments: { type: 'string' },
        'usage-events': { type: 'string' },
        seed: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const workflows = count(values.workflows, 'workflows', 1000, 1, 1_000_000);
  const users = count(values.users, 'users', Math.max(2, Math.round(workflows / 10)), 2, 1_000_000);
  const seed = count(values.seed, 'seed', 1, 0, 2 ** 32 - 1);
  const deployments = count(values.deployments, 'deployments', 0, 0, 1_000_000);
  const usageEvents = count(values['usage-events'], 'usage-events', 0, 0, 100_000_000);
  if (usageEvents > 0 && deployments === 0) fail('--usage-events needs --deployments: events are connections to deployments');
  const bulk = workflows > BASE_WORKFLOWS || deployments > 0;

  const config = loadConfig(process.env);
  const where = config.databaseUrl
    ? `PostgreSQL (${new URL(config.databaseUrl).pathname.slice(1) || 'default database'})`
    : `the embedded database under ${config.dataDir}`;
  const started = performance.now();
  // Bulk statements of a large seed run for minutes: no per-query bound (QUERY_TIMEOUT_MS is for requests).
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, queryTimeoutMs: 6 * 3_600_000 });
  try {
    const now = new Date();
    const base = Math.min(workflows, BASE_WORKFLOWS);
    const counts = await seedDatabase(db.prisma, {
      workflows: base,
      users: workflows > BASE_WORKFLOWS ? Math.max(2, Math.round((users * base) / workflows)) : users,
      seed,
      now,
    });
    console.log(
      `generated in ${((performance.now() - started) / 1000).toFixed(1)} s: ${counts.users} users, ${counts.publicWorkflows} public workflows, ` +
        `${counts.forks} forks, ${counts.versions} versions, ${counts.subscriptions} subscriptions, ${counts.reviews} reviews`,
    );
    if (bulk) {
      const grown = await growDatabase(db.prisma, { workflows, users, deployments, usageEvents, seed, now }, (line) => console.log(line));
      console.log(
        `grown in bulk: +${grown.addedUsers} users, +${grown.addedWorkflows} public workflows, +${grown.addedSubscriptions} subscriptions, ` +
          `+${grown.addedReviews} reviews, ${grown.deployments} deployments, ${grown.usageEvents} usage events`,
      );
    }
    console.log(`seeded ${where} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    if (error instanceof NotEmptyError) {
      process.stderr.write(`refusing to seed: ${error.message}\n`);
      process.exitCode = 1;
    } else throw error;
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`seed failed: ${(error as Error).message}\n`);
  process.exit(1);
});
