import { describe, expect } from 'vitest';
import { serviceTest } from './helpers/service-test.js';
import { createWorkflow, sampleManifest } from './helpers/workflows.js';

/**
 * Every named resource takes a name of at most 100 characters, counted as a person counts them:
 * 100 emoji (200 UTF-16 units) are accepted, 101 refused with the same message everywhere.
 */
describe('the 100-character name rule, through REST', () => {
  const emoji = (n: number) => '🚀'.repeat(n);
  const refused = (res: { status: number; body: any }) => {
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.fields).toEqual([{ field: 'name', message: 'name must be at most 100 characters (got 101)' }]);
  };

  serviceTest('workflows: create, update and fork', async ({ service: t, alice: token }) => {
    const created = await t.call('POST', '/v1/workflows', { token, body: { name: emoji(100), manifest: sampleManifest() } });
    expect(created.status).toBe(201);
    expect(created.body.data.name).toBe(emoji(100));
    refused(await t.call('POST', '/v1/workflows', { token, body: { name: emoji(101), manifest: sampleManifest() } }));
    const id = created.body.data.workflowId;
    refused(await t.call('PUT', `/v1/workflows/${id}`, { token, body: { name: emoji(101) } }));

    const original = await createWorkflow(t, token, { name: 'Forkable', visibility: 'public' });
    const forker = await t.token('names-forker@example.com');
    refused(await t.call('POST', `/v1/workflows/${original.workflowId}/fork`, { token: forker, body: { name: emoji(101) } }));
    const fork = await t.call('POST', `/v1/workflows/${original.workflowId}/fork`, { token: forker, body: { name: emoji(100) } });
    expect(fork.status).toBe(201);
    expect(fork.body.data.name).toBe(emoji(100));
  });

  serviceTest(
    'a fork of a 100-emoji workflow is named with its first 100 characters, no emoji split',
    async ({ service: t, alice: token }) => {
      const original = await createWorkflow(t, token, { name: emoji(100), visibility: 'public' });
      const forker = await t.token('names-forker-2@example.com');
      const fork = await t.call('POST', `/v1/workflows/${original.workflowId}/fork`, { token: forker, body: {} });
      expect(fork.status).toBe(201);
      expect(fork.body.data.name).toBe(emoji(100));
    },
  );

  serviceTest('deployments: create and update', async ({ service: t, alice: token }) => {
    const wf = await createWorkflow(t, token, { name: 'Bundled' });
    const created = await t.call('POST', '/v1/deployments', { token, body: { name: emoji(100), workflowIds: [wf.workflowId] } });
    expect(created.status).toBe(201);
    expect(created.body.data.name).toBe(emoji(100));
    refused(await t.call('POST', '/v1/deployments', { token, body: { name: emoji(101), workflowIds: [wf.workflowId] } }));
    refused(await t.call('PUT', `/v1/deployments/${created.body.data.deploymentId}`, { token, body: { name: emoji(101) } }));
  });

  serviceTest('API keys', async ({ service: t, alice: token }) => {
    const created = await t.call('POST', '/v1/api-keys', { token, body: { name: emoji(100) } });
    expect(created.status).toBe(201);
    expect(created.body.data.name).toBe(emoji(100));
    refused(await t.call('POST', '/v1/api-keys', { token, body: { name: emoji(101) } }));
  });
});
