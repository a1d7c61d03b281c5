import { describe, expect } from 'vitest';
import { MANIFEST_LIMITS } from '../../src/manifest/limits.js';
import { createTestDatabase } from '../helpers/database.js';
import { seedManifest, seedWorkflow, userIdOf } from '../helpers/seed.js';
import { serviceTestWith } from '../helpers/service-test.js';

/** A valid manifest whose JSON text is about `bytes` long (the padding sits in a step's parameters). */
function manifestOfSize(bytes: number): Record<string, any> {
  const manifest = seedManifest('big');
  manifest.steps[0].parameters = { notes: '' };
  manifest.steps[0].parameters.notes = 'x'.repeat(Math.max(0, bytes - Buffer.byteLength(JSON.stringify(manifest))));
  return manifest;
}

let statements = 0;

/**
 * A database that counts its statements, a free user, and that user's public workflow with 40
 * versions of a manifest as large as is accepted.
 */
const test = serviceTestWith({}, { database: () => createTestDatabase({ onQuery: () => (statements += 1) }) }).extend<{
  world: { token: string; workflowId: string };
}>({
  world: [
    async ({ service: t }, use) => {
      const token = await t.token('hoarder@example.com', { plan: 'free' });
      const owner = await userIdOf(t, token);
      // The reproduction: a public workflow with 40 versions of a manifest as large as is accepted.
      const big = manifestOfSize(MANIFEST_LIMITS.maxBytes - 1024);
      const workflowId = await seedWorkflow(t, owner, {
        visibility: 'public',
        versions: Array.from({ length: 40 }, (_, i) => ({ version: `1.${i}.0`, manifest: { ...big, name: `big ${i}` } })),
      });
      await use({ token, workflowId });
    },
    { scope: 'file' },
  ],
});

/**
 * Unrestricted resource consumption (OWASP API4): one GraphQL request asking for many aliased
 * copies of a workflow's whole history, with large manifests, is refused before anything is read.
 */
describe('GraphQL and manifests are bounded', () => {
  test('refuses the aliased history request before any read', async ({ service: t, world: { token, workflowId } }) => {
    const fields = Array.from(
      { length: 14 },
      (_, i) => `a${i}: workflow(workflowId: $id) { versions(limit: 40) { data { manifest } } }`,
    ).join(' ');
    const before = statements;
    const res = await t.graphql(`query ($id: String!) { ${fields} }`, { id: workflowId }, token);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors[0].extensions.details).toEqual({ limit: 'cost' });
    expect(res.body.errors[0].message).toMatch(/estimated cost is \d+; at most 20000/);
    expect(res.body.data).toBeUndefined();
    expect(statements - before).toBe(0);
  });

  test('computes the cost from a page size passed as a variable', async ({ service: t, world: { token, workflowId } }) => {
    const query =
      'query ($id: String!, $n: Int) { workflow(workflowId: $id) { versions(limit: $n) { data { version manifest } pagination { hasMore count } } } }';
    const before = statements;
    const refused = await t.graphql(query, { id: workflowId, n: 100 }, token);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].extensions.details).toEqual({ limit: 'cost' });
    expect(statements - before).toBe(0);
    // A variable left out takes the default its definition gives.
    const defaulted = await t.graphql(
      'query ($id: String!, $n: Int = 60) { workflow(workflowId: $id) { versions(limit: $n) { data { manifest } } } }',
      { id: workflowId },
      token,
    );
    expect(defaulted.body.errors?.[0]?.extensions?.details).toEqual({ limit: 'cost' });

    const accepted = await t.graphql(query, { id: workflowId, n: 2 }, token);
    expect(accepted.status).toBe(200);
    expect(accepted.body.errors).toBeUndefined();
    const page = accepted.body.data.workflow.versions;
    expect(page.data).toHaveLength(2);
    expect(page.pagination).toMatchObject({ hasMore: true, count: 2 });
  });

  test('pages Workflow.versions with a cursor', async ({ service: t, world: { token, workflowId } }) => {
    const query =
      'query ($id: String!, $cursor: String) { workflow(workflowId: $id) { versions(limit: 30, cursor: $cursor) { data { version } pagination { nextCursor hasMore count } } } }';
    const first = await t.graphql(query, { id: workflowId }, token);
    expect(first.body.data.workflow.versions.pagination).toMatchObject({ hasMore: true, count: 30 });
    const second = await t.graphql(query, { id: workflowId, cursor: first.body.data.workflow.versions.pagination.nextCursor }, token);
    expect(second.body.data.workflow.versions.pagination).toMatchObject({ hasMore: false, count: 10 });
    const seen = [...first.body.data.workflow.versions.data, ...second.body.data.workflow.versions.data].map(
      (v: { version: string }) => v.version,
    );
    expect(new Set(seen).size).toBe(40);
    const tooMany = await t.graphql(
      'query ($id: String!) { workflow(workflowId: $id) { versions(limit: 101) { data { version } } } }',
      { id: workflowId },
      token,
    );
    expect(tooMany.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  });

  test('refuses a manifest over 256 KiB on create and update, and accepts one just under', async ({ service: t }) => {
    const fresh = await t.token('sizes@example.com');
    for (const size of [MANIFEST_LIMITS.maxBytes + 10, 900 * 1024]) {
      const res = await t.call('POST', '/v1/workflows', { token: fresh, body: { name: 'Too big', manifest: manifestOfSize(size) } });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.manifestErrors).toEqual([
        { path: '', code: 'too_large', message: expect.stringMatching(/at most 262144 are allowed/) },
      ]);
    }
    const ok = await t.call('POST', '/v1/workflows', {
      token: fresh,
      body: { name: 'Just fits', manifest: manifestOfSize(MANIFEST_LIMITS.maxBytes - 200) },
    });
    expect(ok.status).toBe(201);
    const put = await t.call('PUT', `/v1/workflows/${ok.body.data.workflowId}`, {
      token: fresh,
      body: { name: 'Just fits', manifest: manifestOfSize(MANIFEST_LIMITS.maxBytes + 500) },
    });
    expect(put.status).toBe(400);
    expect(put.body.error.details.manifestErrors[0].code).toBe('too_large');
    const validated = await t.call('POST', '/v1/manifests/validate', {
      token: fresh,
      body: { manifest: manifestOfSize(MANIFEST_LIMITS.maxBytes + 500) },
    });
    expect(validated.body.data).toMatchObject({ valid: false, errors: [{ code: 'too_large' }] });
  });

  test("refuses a version beyond the plan's versions per workflow with 402, and still accepts changes that record none", async ({
    service: t,
  }) => {
    const owner = await t.token('historian@example.com', { plan: 'free' });
    const ownerId = await userIdOf(t, owner);
    const id = await seedWorkflow(t, ownerId, {
      versions: Array.from({ length: 100 }, (_, i) => ({ version: `1.0.${i}`, manifest: seedManifest(`v${i}`) })),
    });
    const current = seedManifest('v99');
    // Nothing an agent sees changes (the same manifest, fork permission): no version, accepted.
    const unchanged = await t.call('PUT', `/v1/workflows/${id}`, { token: owner, body: { allowForks: false, manifest: current } });
    expect(unchanged.status, unchanged.text).toBe(200);
    // A new manifest, or a new name alone, is a new version: refused.
    for (const body of [{ manifest: seedManifest('v100') }, { name: 'Renamed only' }]) {
      const refused = await t.call('PUT', `/v1/workflows/${id}`, { token: owner, body });
      expect(refused.status).toBe(402);
      expect(refused.body.error).toMatchObject({
        code: 'PLAN_LIMIT_EXCEEDED',
        details: { quota: 'versionsPerWorkflow', limit: 100, used: 100, plan: 'free', workflowId: id },
      });
    }
    const after = await t.call('GET', `/v1/workflows/${id}`, { token: owner });
    expect(after.body.data.currentVersion).toBe('1.0.99');
    expect(after.body.data.manifest.name).toBe('v99');
    expect(after.body.data.name).toBe('Feature pipeline');
  });

  test('reports the versions limit with the plan', async ({ service: t, world: { token } }) => {
    const res = await t.graphql('{ me { limits { plan versionsPerWorkflow } } }', {}, token);
    expect(res.body.data.me.limits).toEqual({ plan: 'free', versionsPerWorkflow: 100 });
  });

  test('checks that the test manifests have the sizes they claim', () => {
    expect(Buffer.byteLength(JSON.stringify(manifestOfSize(MANIFEST_LIMITS.maxBytes + 10)))).toBe(MANIFEST_LIMITS.maxBytes + 10);
  });
});
