import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';

/** Operations that are too deep, use too many aliases or cost too much are refused before any database work. */
describe('GraphQL operation limits', () => {
  let t: TestApp;
  let token: string;
  let statements = 0;

  beforeAll(async () => {
    t = await startTestApp({ database: await createTestDatabase({ onQuery: () => (statements += 1) }) });
    token = await t.token('limits@example.com');
    // The first request resolves the user; later ones reuse it, so refusals touch no table.
    await t.graphql('{ me { userId } }', {}, token);
  });
  afterAll(async () => {
    await t?.close();
    await t?.database.drop();
  });

  async function refused(query: string, limit: string) {
    const before = statements;
    const res = await t.graphql(query, {}, token);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors[0].extensions.details.limit).toBe(limit);
    expect(res.body.data).toBeUndefined();
    expect(statements - before).toBe(0);
    return res;
  }

  it('refuses an operation nested too deep', async () => {
    let inner = 'workflowId';
    for (let i = 0; i < 8; i += 1) inner = `forkedFromWorkflow { ${inner} }`;
    const res = await refused(`{ me { workflows { data { ${inner} } } } }`, 'depth');
    expect(res.body.errors[0].message).toMatch(/levels deep/);
  });

  it("accepts GraphiQL's own introspection query (15 levels), while other operations stop at 10", async () => {
    const res = await t.graphql(getIntrospectionQuery(), {}, token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.__schema.queryType.name).toBe('Query');
    // Mixed with a field of the API, the usual limit holds.
    let inner = 'workflowId';
    for (let i = 0; i < 8; i += 1) inner = `forkedFromWorkflow { ${inner} }`;
    await refused(`{ __schema { queryType { name } } me { workflows { data { ${inner} } } } }`, 'depth');
  });

  it('refuses introspection nested to make it expensive', async () => {
    const res = await t.graphql('{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }', {}, token);
    expect(res.body.errors?.[0]?.message).toMatch(/introspection/i);
    expect(res.body.data).toBeUndefined();
  });

  it('refuses too many aliases', async () => {
    const fields = Array.from({ length: 31 }, (_, i) => `a${i}: userId`).join(' ');
    await refused(`{ me { ${fields} } }`, 'aliases');
  });

  it('refuses an operation that costs too much', async () => {
    const heavy = 'versions(limit: 100) { data { version manifest createdAt workflowId } }';
    await refused(
      `{ me { workflows(limit: 100) { data { ${heavy} stats { forks } forkedFromWorkflow { ${heavy} } } } library(limit: 100) { data { workflow { ${heavy} } } } } }`,
      'cost',
    );
  });

  it('accepts the dashboard query', async () => {
    const res = await t.graphql(
      '{ me { userId workflows(limit: 20) { data { workflowId versions(limit: 5) { data { version } } } } library { data { libraryId } } } }',
      {},
      token,
    );
    expect(res.body.errors).toBeUndefined();
  });
});
