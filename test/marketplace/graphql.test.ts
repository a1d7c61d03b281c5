import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';
import { createWorkflow } from '../helpers/workflows.js';
import { tokens } from '../helpers/marketplace.js';
import { serviceTestWith } from '../helpers/service-test.js';

let statements = 0;

const test = serviceTestWith({}, { database: () => createTestDatabase({ onQuery: () => (statements += 1) }) }).extend<{ viewer: string }>({
  viewer: [async ({ service: t }, use) => use(await t.token('gql-market-viewer@example.com')), { scope: 'file' }],
});

/** The marketplace through GraphQL (issue 4.5), and its cost in SQL statements. */
describe('marketplace through GraphQL', () => {
  const ITEM =
    'workflowId name category tags stats { rating ratingCount subscribers forks } owner { userId handle } publishedAt workflow { name currentVersion }';
  const QUERY = `query($q: String!) {
    marketplace(category: "gql", sort: rating, limit: 50) { data { ${ITEM} } pagination { count hasMore nextCursor } }
    marketplaceSearch(q: $q, category: "gql", limit: 50) { data { ${ITEM} } pagination { count } }
    marketplaceFeatured { data { ${ITEM} } }
  }`;

  async function run(t: TestApp, viewer: string): Promise<{ count: number; body: any; text: string }> {
    const before = statements;
    const res = await t.graphql(QUERY, { q: 'graphq' }, viewer);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    return { count: statements - before, body: res.body, text: res.text };
  }

  test('loads each owner in the same query as the workflows: the statement count does not grow with the page', async ({
    service: t,
    viewer,
  }) => {
    const owners = await tokens(t, 'gql-owner', 12);
    for (const o of owners.slice(0, 2)) await createWorkflow(t, o, { name: 'GraphQL listed', category: 'gql', visibility: 'public' });
    await run(t, viewer); // warm the viewer
    const small = await run(t, viewer);
    expect(small.body.data.marketplace.data).toHaveLength(2);
    expect(small.body.data.marketplaceSearch.data).toHaveLength(2);

    for (const o of owners.slice(2)) await createWorkflow(t, o, { name: 'GraphQL listed', category: 'gql', visibility: 'public' });
    const large = await run(t, viewer);
    expect(large.body.data.marketplace.data).toHaveLength(12);
    expect(new Set(large.body.data.marketplace.data.map((w: any) => w.owner.userId)).size).toBe(12);
    expect(large.body.data.marketplaceSearch.data).toHaveLength(12);
    expect(large.count).toBe(small.count);
    // One statement per list (owners joined in) — search one per relevance tier, three at most —
    // and one for the whole workflows of all three.
    expect(large.count).toBeLessThanOrEqual(7);
    expect(large.text).not.toContain('@example.com');
  });

  test('answers bad arguments with VALIDATION_ERROR, not a database error', async ({ service: t, viewer }) => {
    const cases: [string, Record<string, unknown>][] = [
      ['query { marketplace(limit: 0) { pagination { count } } }', {}],
      ['query { marketplace(limit: 500) { pagination { count } } }', {}],
      ['query { marketplace(cursor: "garbled!") { pagination { count } } }', {}],
      ['query($q: String!) { marketplaceSearch(q: $q) { pagination { count } } }', { q: '' }],
      ['query($q: String!) { marketplaceSearch(q: $q) { pagination { count } } }', { q: 'y'.repeat(10_000) }],
      ['query($q: String!) { marketplaceSearch(q: $q) { pagination { count } } }', { q: '& | ! :* ()' }],
    ];
    for (const [query, variables] of cases) {
      const res = await t.graphql(query, variables, viewer);
      expect(res.body.errors?.[0]?.extensions?.code, query).toBe('VALIDATION_ERROR');
    }
    const soup = await t.graphql(
      'query($q: String!) { marketplaceSearch(q: $q) { pagination { count } } }',
      { q: "' OR 1=1 -- (a & b | !c:*" },
      viewer,
    );
    expect(soup.body.errors).toBeUndefined();
    const sort = await t.graphql('query { marketplace(sort: best) { pagination { count } } }', {}, viewer);
    expect(sort.body.errors?.length).toBeGreaterThan(0);
  });
});
