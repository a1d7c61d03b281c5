import { describe, expect } from 'vitest';
import { ADAPTERS } from '../../src/manifest/adapter-list.js';
import { serviceTest } from '../helpers/service-test.js';
import { createWorkflow } from '../helpers/workflows.js';

/**
 * One list of adapters and one check of it: a library entry and a deployment take the same
 * `Adapter` enum in GraphQL, refuse the same unknown value with the same message in REST, and
 * keep the same set (each adapter once, in the canonical order).
 */
/** The service with alice's public workflow, which bob (the reader) adds and deploys. */
const adaptersTest = serviceTest.extend<{ workflowId: string }>({
  workflowId: [
    async ({ service, alice }, use) => use((await createWorkflow(service, alice, { visibility: 'public' })).workflowId),
    { scope: 'file' },
  ],
});

describe('the Adapter enum and the one adapter check', () => {
  const messy = ['adapter_three', 'adapter_one', 'adapter_three'];

  adaptersTest(
    'REST: a library entry and a deployment store the same set from the same list',
    async ({ service: t, bob: reader, workflowId }) => {
      const entry = await t.call('POST', `/v1/library/${workflowId}`, { token: reader, body: { enabledAdapters: messy } });
      expect(entry.status).toBe(201);
      expect(entry.body.data.enabledAdapters).toEqual(['adapter_one', 'adapter_three']);
      const patched = await t.call('PATCH', `/v1/library/${workflowId}`, {
        token: reader,
        body: { enabledAdapters: ['adapter_two', 'adapter_one'] },
      });
      expect(patched.body.data.enabledAdapters).toEqual(['adapter_one', 'adapter_two']);
      const deployment = await t.call('POST', '/v1/deployments', {
        token: reader,
        body: { name: 'adapters', workflowIds: [workflowId], enabledAdapters: messy },
      });
      expect(deployment.status).toBe(201);
      expect(deployment.body.data.enabledAdapters).toEqual(['adapter_one', 'adapter_three']);
    },
  );

  adaptersTest('REST: an unknown adapter is refused with the same answer on both', async ({ service: t, bob: reader, workflowId }) => {
    const library = await t.call('PATCH', `/v1/library/${workflowId}`, {
      token: reader,
      body: { enabledAdapters: ['adapter_one', 'cursor'] },
    });
    const deployment = await t.call('POST', '/v1/deployments', {
      token: reader,
      body: { name: 'bad', workflowIds: [workflowId], enabledAdapters: ['adapter_one', 'cursor'] },
    });
    for (const res of [library, deployment]) {
      expect(res.status).toBe(400);
      expect(res.body.error.details.fields).toEqual([
        { field: 'enabledAdapters[1]', message: `enabledAdapters[1] must be one of ${ADAPTERS.join(', ')}` },
      ]);
    }
  });

  adaptersTest('GraphQL: both take and return the Adapter enum', async ({ service: t, bob: reader, workflowId }) => {
    const res = await t.graphql(
      `mutation ($id: String!) {
        updateLibraryEntry(workflowId: $id, enabledAdapters: [adapter_two, adapter_two]) { enabledAdapters }
        createDeployment(name: "enum", workflowIds: [$id], enabledAdapters: [adapter_two]) { enabledAdapters }
      }`,
      { id: workflowId },
      reader,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({
      updateLibraryEntry: { enabledAdapters: ['adapter_two'] },
      createDeployment: { enabledAdapters: ['adapter_two'] },
    });
    const unknown = await t.graphql(
      `mutation { updateLibraryEntry(workflowId: "${workflowId}", enabledAdapters: ["adapter_one"]) { isActive } }`,
      {},
      reader,
    );
    expect(unknown.body.errors[0].message).toMatch(/Enum "Adapter" cannot represent non-enum value/);
    const type = await t.graphql(
      `{ library: __type(name: "LibraryEntry") { fields { name type { ofType { ofType { ofType { name } } } } } } }`,
      {},
      reader,
    );
    const field = type.body.data.library.fields.find((f: { name: string }) => f.name === 'enabledAdapters');
    expect(field.type.ofType.ofType.ofType.name).toBe('Adapter');
  });
});
