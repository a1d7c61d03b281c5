import { getIntrospectionQuery } from 'graphql';
import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';
import { serviceTestWith } from '../helpers/service-test.js';

let statements = 0;

const test = serviceTestWith({}, { database: () => createTestDatabase({ onQuery: () => (statements += 1) }) }).extend<{ token: string }>({
  token: [
    async ({ service: t }, use) => {
      const token = await t.token('limits@example.com');
      // The first request resolves the user; later ones reuse it, so refusals touch no table.
      await t.graphql('{ me { userId } }', {}, token);
      await use(token);
    },
    { scope: 'file' },
  ],
});

/** Operations that are too deep, use too many aliases or cost too much are refused before any database work. */
describe('GraphQL operation limits', () => {
  async function refused(t: TestApp, token: string, query: string, limit: string) {
    const before = statements;
    const res = await t.graphql(query, {}, token);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors[0].extensions.details.limit).toBe(limit);
    expect(res.body.data).toBeUndefined();
    expect(statements - before).toBe(0);
    return res;
  }

  test('refuses an operation nested too deep', async ({ service: t, token }) => {
    let inner = 'workflowId';
    for (let i = 0; i < 8; i += 1) inner = `forkedFromWorkflow { ${inner} }`;
    const res = await refused(t, token, `{ me { workflows { data { ${inner} } } } }`, 'depth');
    expect(res.body.errors[0].message).toMatch(/levels deep/);
  });

  test("accepts GraphiQL's own introspection query (15 levels), while other operations stop at 10", async ({ service: t, token }) => {
    const res = await t.graphql(getIntrospectionQuery(), {}, token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.__schema.queryType.name).toBe('Query');
    // Mixed with a field of the API, the usual limit holds.
    let inner = 'workflowId';
    for (let i = 0; i < 8; i += 1) inner = `forkedFromWorkflow { ${inner} }`;
    await refused(t, token, `{ __schema { queryType { name } } me { workflows { data { ${inner} } } } }`, 'depth');
  });

  test('refuses introspection nested to make it expensive', async ({ service: t, token }) => {
    const res = await t.graphql('{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }', {}, token);
    expect(res.body.errors?.[0]?.message).toMatch(/introspection/i);
    expect(res.body.data).toBeUndefined();
  });

  test('refuses too many aliases', async ({ service: t, token }) => {
    const fields = Array.from({ length: 31 }, (_, i) => `a${i}: userId`).join(' ');
    await refused(t, token, `{ me { ${fields} } }`, 'aliases');
  });

  test('refuses an operation that costs too much', async ({ service: t, token }) => {
    const heavy = 'versions(limit: 100) { data { version manifest createdAt workflowId } }';
    await refused(
      t,
      token,
      `{ me { workflows(limit: 100) { data { ${heavy} stats { forks } forkedFromWorkflow { ${heavy} } } } library(limit: 100) { data { workflow { ${heavy} } } } } }`,
      'cost',
    );
  });

  test('accepts the dashboard query', async ({ service: t, token }) => {
    const res = await t.graphql(
      '{ me { userId workflows(limit: 20) { data { workflowId versions(limit: 5) { data { version } } } } library { data { libraryId } } } }',
      {},
      token,
    );
    expect(res.body.errors).toBeUndefined();
  });
});
