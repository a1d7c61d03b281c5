import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';
import { createWorkflow } from '../helpers/workflows.js';
import { serviceTestWith } from '../helpers/service-test.js';

let statements = 0;
/** The text of every statement sent, in order. */
const sent: string[] = [];

const test = serviceTestWith(
  {},
  {
    database: () =>
      createTestDatabase({
        onQuery: (sql) => {
          statements += 1;
          sent.push(sql);
        },
      }),
  },
);

/** The dashboard's nested read through GraphQL, and its cost in SQL statements. */
describe('workflows through GraphQL', () => {
  const DASHBOARD = `query Dashboard {
    me {
      userId
      workflows(limit: 100) {
        data { workflowId name currentVersion stats { forks subscribers rating ratingCount } versions { data { version } } forkedFrom { workflowId } forkedFromWorkflow { name } }
        pagination { count hasMore }
      }
      library(limit: 100) {
        data { libraryId sourceType workflowVersion workflow { name currentVersion } }
      }
    }
  }`;

  async function statementsFor(t: TestApp, token: string): Promise<{ count: number; body: any }> {
    const before = statements;
    const res = await t.graphql(DASHBOARD, {}, token);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    return { count: statements - before, body: res.body };
  }

  test('reads workflows, versions, fork origins and the library without N+1', async ({ service: t }) => {
    const source = await t.token('source@example.com');
    const user = await t.token('dash@example.com');
    const originals = [];
    for (let i = 0; i < 3; i += 1) originals.push(await createWorkflow(t, source, { name: `Original ${i}`, visibility: 'public' }));

    await createWorkflow(t, user, { name: 'Own 0' });
    await t.call('POST', `/v1/workflows/${originals[0]!.workflowId}/fork`, { token: user, body: {} });
    await t.call('POST', `/v1/library/${originals[1]!.workflowId}`, { token: user, body: {} });
    await statementsFor(t, user); // the user row exists; warm everything once
    const small = await statementsFor(t, user);
    expect(small.body.data.me.workflows.data).toHaveLength(2);
    const fork = small.body.data.me.workflows.data.find((w: any) => w.forkedFrom);
    expect(fork.forkedFromWorkflow.name).toBe('Original 0');
    expect(small.body.data.me.library.data).toHaveLength(3);

    for (let i = 0; i < 6; i += 1) await createWorkflow(t, user, { name: `More ${i}` });
    await t.call('POST', `/v1/workflows/${originals[1]!.workflowId}/fork`, { token: user, body: {} });
    await t.call('POST', `/v1/library/${originals[2]!.workflowId}`, { token: user, body: {} });
    const large = await statementsFor(t, user);
    expect(large.body.data.me.workflows.data).toHaveLength(9);
    expect(large.body.data.me.library.data).toHaveLength(11);
    expect(large.count).toBe(small.count);
    expect(large.count).toBeLessThanOrEqual(10);
  });

  test('reads a workflow by id in one statement once the viewer is known, every field included', async ({ service: t }) => {
    const token = await t.token('one-read@example.com');
    const { workflowId } = await createWorkflow(t, token, { name: 'Read once', visibility: 'public' });
    const FIELDS = `workflow(workflowId: $id) { workflowId digest teamId allowForks check { status } moderation { state } manifest
      versions { data { version digest check { status } } } }`;
    await t.call('GET', `/v1/workflows/${workflowId}`, { token }); // the viewer is read and kept
    const before = statements;
    const rest = await t.call('GET', `/v1/workflows/${workflowId}`, { token });
    expect(rest.status).toBe(200);
    expect(rest.body.data.digest).toMatch(/^sha256:/);
    expect(statements - before).toBe(1);

    const from = sent.length;
    const res = await t.graphql(`query ($id: String!) { ${FIELDS} }`, { id: workflowId }, token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.workflow.digest).toBe(rest.body.data.digest);
    expect(res.body.data.workflow.moderation.state).toBe('listed');
    // The workflow row is read once; its versions' first page takes its own statements.
    const workflowReads = sent.slice(from).filter((sql) => /\bFROM\s+("public"\.)?"?workflows"?\s/i.test(sql));
    expect(workflowReads).toHaveLength(1);
  });

  test('runs the same workflow operations as REST', async ({ service: t }) => {
    const token = await t.token('gql@example.com');
    const created = await t.graphql(
      'mutation($m: JSON!) { createWorkflow(name: "From GraphQL", manifest: $m, tags: ["g"]) { workflowId currentVersion visibility } }',
      { m: (await import('../helpers/workflows.js')).sampleManifest() },
      token,
    );
    expect(created.body.data.createWorkflow).toMatchObject({ currentVersion: '1.0.0', visibility: 'private' });
    const id = created.body.data.createWorkflow.workflowId;
    const read = await t.graphql('query($id: String!) { workflow(workflowId: $id) { name tags } }', { id }, token);
    expect(read.body.data.workflow).toEqual({ name: 'From GraphQL', tags: ['g'] });
    const other = await t.token('gql-other@example.com');
    const hidden = await t.graphql('query($id: String!) { workflow(workflowId: $id) { name } }', { id }, other);
    expect(hidden.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
