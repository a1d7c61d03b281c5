import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { growDatabase } from '../../scripts/seed/bulk.js';
import { seedDatabase } from '../../scripts/seed/insert.js';
import { createTestDatabase } from '../helpers/database.js';
import { readAllPages } from '../helpers/marketplace.js';
import { serviceTestWith } from '../helpers/service-test.js';

const now = new Date();
/** What growDatabase reports, once the service's database is seeded and grown. */
let grown: Awaited<ReturnType<typeof growDatabase>>;

/** The service on a database seeded and grown before it starts, as `npm run seed` leaves one. */
const test = serviceTestWith(
  {},
  {
    database: async () => {
      const database = await createTestDatabase();
      await seedDatabase(database.db.prisma, { workflows: 40, users: 8, seed: 5, now });
      grown = await growDatabase(database.db.prisma, { workflows: 240, users: 30, deployments: 25, usageEvents: 600, seed: 5, now });
      return database;
    },
  },
);

/**
 * The scale part of the seed (npm run seed beyond the generator's workflows, with deployments and
 * usage events), at a small size: consistent counters, usage derived from its events, the text
 * the generator's, and a service that serves it.
 */
describe('seed grown in bulk', () => {
  test('adds the workflows, users, deployments and usage asked for', async ({ service: t }) => {
    expect(grown).toMatchObject({ addedUsers: 22, addedWorkflows: 200 });
    expect(grown.addedSubscriptions).toBeGreaterThan(200);
    expect(grown.addedReviews).toBeGreaterThan(30);
    expect(grown.deployments).toBeGreaterThan(15);
    expect(grown.deployments).toBeLessThanOrEqual(25);
    // Repeated keys (same caller, adapter, deployment and day) are recorded once.
    expect(grown.usageEvents).toBeGreaterThan(400);
    expect(grown.usageEvents).toBeLessThanOrEqual(600);
    const prisma = t.database.db.prisma;
    expect(await prisma.workflow.count({ where: { visibility: 'public' } })).toBe(240);
    expect(await prisma.user.count()).toBe(30);
    expect(await prisma.mcpConnection.count()).toBe(grown.usageEvents);
  });

  test('keeps every counter equal to the rows it counts, and usage equal to its events', async ({ service: t }) => {
    const mismatches = await t.database.db.prisma.$queryRaw<{ kind: string; n: number }[]>`
      SELECT 'subscribers' AS kind, count(*)::int AS n FROM workflows w
        WHERE w.subscribers_count <> (SELECT count(*) FROM library_entries e WHERE e.workflow_id = w.id AND e.source_type = 'subscribed')
      UNION ALL SELECT 'ratings', count(*)::int FROM workflows w
        WHERE (w.rating_sum, w.rating_count) <> (SELECT coalesce(sum(r.rating), 0)::int, count(*)::int FROM reviews r WHERE r.workflow_id = w.id)
      UNION ALL SELECT 'own reviews', count(*)::int FROM reviews r JOIN workflows w ON w.id = r.workflow_id WHERE w.owner_id = r.user_id
      UNION ALL SELECT 'versions', count(*)::int FROM workflows w
        WHERE NOT EXISTS (SELECT 1 FROM workflow_versions v WHERE v.workflow_id = w.id AND v.version = w.current_version)
      UNION ALL SELECT 'owned entries', count(*)::int FROM workflows w
        WHERE NOT EXISTS (SELECT 1 FROM library_entries e WHERE e.workflow_id = w.id AND e.user_id = w.owner_id AND e.source_type IN ('owned', 'forked'))
      UNION ALL SELECT 'daily usage', count(*)::int FROM deployment_usage u
        WHERE u.count <> (SELECT count(*) FROM mcp_connections c WHERE c.deployment_id = u.deployment_id AND c.adapter = u.adapter AND c.day = u.day)
      UNION ALL SELECT 'usage total', (SELECT coalesce(sum(count), 0)::int FROM deployment_usage) - (SELECT count(*)::int FROM mcp_connections)
      UNION ALL SELECT 'monthly counters', (SELECT coalesce(sum(count), 0)::int FROM usage_counters WHERE metric = 'connections')
        - (SELECT count(*)::int FROM mcp_connections)
      UNION ALL SELECT 'bundles of others', count(*)::int FROM deployment_workflows dw JOIN deployments d ON d.id = dw.deployment_id
        WHERE NOT EXISTS (SELECT 1 FROM library_entries e WHERE e.user_id = d.owner_id AND e.workflow_id = dw.workflow_id)`;
    expect(mismatches.map((m) => [m.kind, m.n])).toEqual([
      ['subscribers', 0],
      ['ratings', 0],
      ['own reviews', 0],
      ['versions', 0],
      ['owned entries', 0],
      ['daily usage', 0],
      ['usage total', 0],
      ['monthly counters', 0],
      ['bundles of others', 0],
    ]);
  });

  test('serves the grown marketplace: every workflow browsable, searchable by the generator’s words', async ({ service: t }) => {
    const token = await t.token('bulk-viewer@example.com');
    expect((await readAllPages(t, token, '/v1/marketplace?sort=popular', 100)).length).toBe(240);
    const search = await t.call('GET', '/v1/marketplace/search?q=review&limit=50', { token });
    expect(search.status).toBe(200);
    expect(search.body.data.length).toBeGreaterThan(10);
    expect(search.text).not.toContain('@seed.invalid');
  });

  it('the seed command refuses usage events without deployments, naming the option', () => {
    const run = spawnSync(
      process.execPath,
      ['node_modules/tsx/dist/cli.mjs', 'scripts/seed.ts', '--workflows', '10', '--usage-events', '100'],
      {
        encoding: 'utf8',
        env: { ...process.env, DATABASE_URL: '' },
        timeout: 60_000,
      },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--usage-events needs --deployments');
  });
});
