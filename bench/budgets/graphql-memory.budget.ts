import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANIFEST_LIMITS } from '../../src/manifest/limits.js';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { seedManifest, seedWorkflow, userIdOf } from '../../test/helpers/seed.js';

/**
 * The memory a refused costly GraphQL request may take: far under 50 MB for one asking for many
 * aliased copies of a workflow's whole history (test/graphql/resource-limits.test.ts shows it is
 * refused before any read; this measures the process's resident memory around it).
 */
describe('a refused costly GraphQL request', () => {
  let t: TestApp;
  let token: string;
  let workflowId: string;

  beforeAll(async () => {
    t = await startTestApp();
    token = await t.token('hoarder@example.com', { plan: 'free' });
    const owner = await userIdOf(t, token);
    const big = seedManifest('big');
    big.steps[0].parameters = { notes: '' };
    big.steps[0].parameters.notes = 'x'.repeat(MANIFEST_LIMITS.maxBytes - 1024 - Buffer.byteLength(JSON.stringify(big)));
    workflowId = await seedWorkflow(t, owner, {
      visibility: 'public',
      versions: Array.from({ length: 40 }, (_, i) => ({ version: `1.${i}.0`, manifest: { ...big, name: `big ${i}` } })),
    });
  }, 60_000);
  afterAll(() => t?.close());

  it('grows the resident memory by far less than 50 MB', async () => {
    const fields = Array.from(
      { length: 14 },
      (_, i) => `a${i}: workflow(workflowId: $id) { versions(limit: 40) { data { manifest } } }`,
    ).join(' ');
    const rssBefore = process.memoryUsage().rss;
    const res = await t.graphql(`query ($id: String!) { ${fields} }`, { id: workflowId }, token);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.details).toEqual({ limit: 'cost' });
    const grown = process.memoryUsage().rss - rssBefore;
    console.log(`refused costly request: resident memory grew by ${(grown / 2 ** 20).toFixed(1)} MB`);
    expect(grown).toBeLessThan(50 * 1024 * 1024);
  });
});
