import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createWorkflow, libraryEntry, sampleManifest } from '../helpers/workflows.js';
import { userIdOf } from '../helpers/seed.js';
import { serviceTest } from '../helpers/service-test.js';

const test = serviceTest.extend<{ owner: string; other: string; ownerId: string; otherId: string }>({
  owner: [async ({ service: t }, use) => use(await t.token('owner@example.com')), { scope: 'file' }],
  other: [async ({ service: t }, use) => use(await t.token('other@example.com')), { scope: 'file' }],
  ownerId: [async ({ service: t, owner }, use) => use(await userIdOf(t, owner)), { scope: 'file' }],
  otherId: [async ({ service: t, other }, use) => use(await userIdOf(t, other)), { scope: 'file' }],
});

const get = (t: TestApp, token: string, id: string) => t.call('GET', `/v1/workflows/${id}`, { token });

/** Forks (spec 2.3, 2.9, 4.1). */
describe('forks', () => {
  describe('fork', () => {
    test('copies a public workflow into a private one the caller owns, and adds it to the library', async ({
      service: t,
      owner,
      other,
      ownerId,
      otherId,
    }) => {
      const original = await createWorkflow(t, owner, { name: 'Original', visibility: 'public' });
      const res = await t.call('POST', `/v1/workflows/${original.workflowId}/fork`, { token: other, body: {} });
      expect(res.status).toBe(201);
      const fork = res.body.data;
      expect(fork).toMatchObject({
        name: 'Original (copy)',
        visibility: 'private',
        currentVersion: '1.0.0',
        forkedFrom: { workflowId: original.workflowId, userId: ownerId, version: '1.0.0' },
      });
      expect(fork.workflowId).not.toBe(original.workflowId);
      expect(fork.manifest).toEqual(original.manifest);
      expect(fork.createdAt).toBeTruthy();
      expect((await get(t, owner, original.workflowId)).body.data.stats.forks).toBe(1);
      const entry = await libraryEntry(t, other, fork.workflowId);
      expect(entry).toMatchObject({ sourceType: 'forked', sourceUserId: ownerId, userId: otherId });

      // Independent and editable: the copy changes, the original does not.
      const edited = await t.call('PUT', `/v1/workflows/${fork.workflowId}`, {
        token: other,
        body: { name: 'Mine now', manifest: sampleManifest({ intent: 'changed' }) },
      });
      expect(edited.status).toBe(200);
      expect(edited.body.data.currentVersion).toBe('1.0.1');
      expect((await get(t, owner, original.workflowId)).body.data.manifest.intent).toBe(original.manifest.intent);
    });

    test('takes a name, refuses a second fork with 409 and counts one fork', async ({ service: t, owner, other }) => {
      const original = await createWorkflow(t, owner, { visibility: 'public' });
      const named = await t.call('POST', `/v1/workflows/${original.workflowId}/fork`, { token: other, body: { name: 'My variant' } });
      expect(named.body.data.name).toBe('My variant');
      const again = await t.call('POST', `/v1/workflows/${original.workflowId}/fork`, { token: other, body: {} });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('CONFLICT');
      expect((await get(t, owner, original.workflowId)).body.data.stats.forks).toBe(1);
    });

    test('lets only one of several concurrent forks by the same user succeed', async ({ service: t, owner }) => {
      const original = await createWorkflow(t, owner, { visibility: 'public' });
      const u = await t.token('racer@example.com');
      const results = await Promise.all(
        Array.from({ length: 5 }, () => t.call('POST', `/v1/workflows/${original.workflowId}/fork`, { token: u, body: {} })),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409)).toHaveLength(4);
      expect((await get(t, owner, original.workflowId)).body.data.stats.forks).toBe(1);
    });

    test('refuses forks the owner disabled (403), of private (404), unknown (404) and own (403) workflows', async ({
      service: t,
      owner,
      other,
    }) => {
      const closed = await createWorkflow(t, owner, { visibility: 'public', allowForks: false });
      const res = await t.call('POST', `/v1/workflows/${closed.workflowId}/fork`, { token: other, body: {} });
      expect(res.status).toBe(403);
      expect(res.body.error.message).toMatch(/disabled forking/);
      const priv = await createWorkflow(t, owner);
      expect((await t.call('POST', `/v1/workflows/${priv.workflowId}/fork`, { token: other, body: {} })).status).toBe(404);
      expect((await t.call('POST', '/v1/workflows/wf_unknown/fork', { token: other, body: {} })).status).toBe(404);
      const mine = await createWorkflow(t, owner, { visibility: 'public' });
      expect((await t.call('POST', `/v1/workflows/${mine.workflowId}/fork`, { token: owner, body: {} })).status).toBe(403);
      const empty = await t.call('POST', `/v1/workflows/${mine.workflowId}/fork`, { token: other, body: { name: '' } });
      expect(empty.status).toBe(400);
    });

    test('keeps forks when the original is deleted or made private', async ({ service: t, owner, other }) => {
      const original = await createWorkflow(t, owner, { visibility: 'public' });
      const fork = (await t.call('POST', `/v1/workflows/${original.workflowId}/fork`, { token: other, body: {} })).body.data;
      await t.call('DELETE', `/v1/workflows/${original.workflowId}`, { token: owner });
      const still = await get(t, other, fork.workflowId);
      expect(still.status).toBe(200);
      expect(still.body.data.forkedFrom.workflowId).toBe(original.workflowId);
    });
  });
});
