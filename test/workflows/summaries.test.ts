import { describe, expect } from 'vitest';
import { createTestDatabase } from '../helpers/database.js';
import { serviceTestWith } from '../helpers/service-test.js';
import { createWorkflow, sampleManifest } from '../helpers/workflows.js';

/** The SQL statements the database was sent since `observed` last began. */
let statements: string[] = [];

/** A user with three workflows, and their manifests as written (newest first). */
interface Pages {
  token: string;
  manifests: Record<string, unknown>[];
}

const test = serviceTestWith({}, { database: () => createTestDatabase({ onQuery: (sql) => statements.push(sql) }) }).extend<{
  world: Pages;
}>({
  world: [
    async ({ service: t }, use) => {
      const token = await t.token('pages@example.com');
      const manifests: Record<string, unknown>[] = [];
      for (let i = 0; i < 3; i += 1) {
        // Keys in an order of the user's own, to see the manifest as written.
        const manifest = { steps: sampleManifest().steps, name: `Flow ${i}`, manifest_version: '1.0', intent: `Intent ${i}` };
        manifests.unshift(manifest);
        await createWorkflow(t, token, { name: `Flow ${i}`, manifest });
      }
      await use({ token, manifests });
    },
    { scope: 'file' },
  ],
});

/** The SQL the request sends, and its answer. */
async function observed<T>(send: () => Promise<T>): Promise<{ sql: string[]; answer: T }> {
  statements = [];
  const answer = await send();
  return { sql: statements, answer };
}
const readsManifests = (sql: string[]) => sql.some((s) => /\bFROM workflows\b/.test(s) && /manifest/.test(s));
const readsWorkflows = (sql: string[]) => sql.some((s) => /\bFROM workflows\b/.test(s));

/**
 * A page of workflows reads the manifests only when an item asks for one: REST's list and a
 * GraphQL page of summaries send the statement without them, and a GraphQL page that asks for the
 * manifest (directly, in a fragment, or under a directive) still gets every manifest as written.
 */
describe('pages of workflows and their manifests', () => {
  test('REST’s list answers summaries without reading a manifest', async ({ service: t, world: { token } }) => {
    const { sql, answer } = await observed(() => t.call('GET', '/v1/workflows', { token }));
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((w: any) => w.name)).toEqual(['Flow 2', 'Flow 1', 'Flow 0']);
    expect(answer.body.data[0]).not.toHaveProperty('manifest');
    expect(readsWorkflows(sql)).toBe(true);
    expect(readsManifests(sql)).toBe(false);
  });

  test('a GraphQL page of summaries reads no manifest either, nested under the user too', async ({ service: t, world: { token } }) => {
    for (const query of [
      '{ workflows { data { workflowId name } } }',
      '{ me { workflows(limit: 2) { data { name stats { forks } } } } }',
    ]) {
      const { sql, answer } = await observed(() => t.graphql(query, {}, token));
      expect(answer.body.errors, query).toBeUndefined();
      expect(readsWorkflows(sql), query).toBe(true);
      expect(readsManifests(sql), query).toBe(false);
    }
  });

  test('a GraphQL page that asks for manifests gets each as written, however it asks', async ({
    service: t,
    world: { token, manifests },
  }) => {
    const queries = [
      '{ workflows { data { name manifest } } }',
      '{ workflows { data { ...M } } } fragment M on Workflow { name manifest }',
      '{ workflows { data { ... on Workflow { name manifest } } } }',
      '{ workflows { ...P } } fragment P on WorkflowPage { data { name manifest } }',
      'query($skip: Boolean!) { workflows { data { name manifest @skip(if: $skip) } } }',
      '{ me { workflows { data { name asWritten: manifest } } } }',
    ];
    for (const query of queries) {
      const { sql, answer } = await observed(() => t.graphql(query, { skip: false }, token));
      expect(answer.body.errors, query).toBeUndefined();
      const page = answer.body.data.workflows ?? answer.body.data.me.workflows;
      const written = page.data.map((w: any) => JSON.stringify(w.manifest ?? w.asWritten));
      expect(written, query).toEqual(manifests.map((m) => JSON.stringify(m)));
      expect(readsManifests(sql), query).toBe(true);
    }
  });
});
