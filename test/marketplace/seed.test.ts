import { describe, expect, it } from 'vitest';
import { generateDataset } from '../../scripts/seed/generate.js';
import { NotEmptyError, seedDatabase } from '../../scripts/seed/insert.js';
import { validateManifest } from '../../src/manifest/validate.js';
import { createTestDatabase } from '../helpers/database.js';
import { readAllPages } from '../helpers/marketplace.js';
import { serviceTestWith } from '../helpers/service-test.js';

const now = new Date();

/** The service on a database the seed script filled first. */
const test = serviceTestWith(
  {},
  {
    database: async () => {
      const database = await createTestDatabase();
      const counts = await seedDatabase(database.db.prisma, { workflows: 300, users: 30, seed: 7, now });
      expect(counts).toMatchObject({ users: 30, publicWorkflows: 300 });
      expect(counts.subscriptions).toBeGreaterThan(300);
      expect(counts.reviews).toBeGreaterThan(50);
      return database;
    },
  },
);

/** The seed script's data (npm run seed): realistic, consistent, deterministic, and only into an empty database. */
describe('seed', () => {
  it('is deterministic for a seed, and every manifest is valid', () => {
    const a = generateDataset({ workflows: 50, users: 5, seed: 3, now });
    const b = generateDataset({ workflows: 50, users: 5, seed: 3, now });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(JSON.stringify(generateDataset({ workflows: 50, users: 5, seed: 4, now }))).not.toBe(JSON.stringify(a));
    for (const w of a.workflows) expect(validateManifest(w.manifest).valid).toBe(true);
    expect(new Set(a.workflows.map((w) => w.category)).size).toBeGreaterThan(5);
  });

  test('keeps every counter equal to the rows it counts, and reviews only by users who used the workflow', async ({ service: t }) => {
    const prisma = t.database.db.prisma;
    const mismatches = await prisma.$queryRaw<{ kind: string; n: number }[]>`
      SELECT 'subscribers' AS kind, count(*)::int AS n FROM workflows w
        WHERE w.subscribers_count <> (SELECT count(*) FROM library_entries e WHERE e.workflow_id = w.id AND e.source_type = 'subscribed')
      UNION ALL SELECT 'forks', count(*)::int FROM workflows w
        WHERE w.forks_count <> (SELECT count(*) FROM workflows f WHERE f.forked_from_workflow_id = w.id)
      UNION ALL SELECT 'ratings', count(*)::int FROM workflows w
        WHERE (w.rating_sum, w.rating_count) <> (SELECT coalesce(sum(r.rating), 0)::int, count(*)::int FROM reviews r WHERE r.workflow_id = w.id)
      UNION ALL SELECT 'unused reviews', count(*)::int FROM reviews r
        WHERE NOT EXISTS (SELECT 1 FROM library_entries e WHERE e.user_id = r.user_id AND e.workflow_id = r.workflow_id AND e.source_type = 'subscribed')
          AND NOT EXISTS (SELECT 1 FROM workflows f WHERE f.owner_id = r.user_id AND f.forked_from_workflow_id = r.workflow_id)
      UNION ALL SELECT 'own reviews', count(*)::int FROM reviews r JOIN workflows w ON w.id = r.workflow_id WHERE w.owner_id = r.user_id`;
    expect(mismatches.map((m) => [m.kind, m.n])).toEqual([
      ['subscribers', 0],
      ['forks', 0],
      ['ratings', 0],
      ['unused reviews', 0],
      ['own reviews', 0],
    ]);
  });

  test('serves the seeded marketplace: browse, search and featured', async ({ service: t }) => {
    const token = await t.token('seed-viewer@example.com');
    expect((await readAllPages(t, token, '/v1/marketplace?sort=rating', 100)).length).toBe(300);
    const search = await t.call('GET', '/v1/marketplace/search?q=revi&limit=5', { token });
    expect(search.status).toBe(200);
    expect(search.body.data.length).toBe(5);
    const featured = await t.call('GET', '/v1/marketplace/featured', { token });
    expect(featured.body.data.length).toBeGreaterThan(0);
    expect(featured.text).not.toContain('@seed.invalid');
    expect(search.text).not.toContain('@seed.invalid');
  });

  test('refuses a database that is not empty', async ({ service: t }) => {
    await expect(seedDatabase(t.database.db.prisma, { workflows: 5, users: 2, seed: 1, now })).rejects.toThrow(NotEmptyError);
    await expect(seedDatabase(t.database.db.prisma, { workflows: 5, users: 2, seed: 1, now })).rejects.toThrow(
      /not empty \(\d+ users, \d+ workflows\)/,
    );
  });
});
