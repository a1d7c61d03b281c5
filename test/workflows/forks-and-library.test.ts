import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAppWithUsers, type TestApp } from '../helpers/app.js';
import { createWorkflow, sampleManifest } from '../helpers/workflows.js';
import { userIdOf } from '../helpers/seed.js';

/** Forks (spec 2.3, 2.9, 4.1) and the library (spec 2.5, 3, 4.5). */
describe('forks and the library', () => {
  let t: TestApp;
  let owner: string;
  let other: string;
  let ownerId: string;
  let otherId: string;

  beforeAll(async () => {
    [t, owner, other] = await startTestAppWithUsers(['owner@example.com', 'other@example.com']);
    ownerId = await userIdOf(t, owner);
    otherId = await userIdOf(t, other);
  });
  afterAll(() => t?.close());

  const get = (token: string, id: string) => t.call('GET', `/v1/workflows/${id}`, { token });
  const libraryOf = async (token: string) => (await t.call('GET', '/v1/library?limit=100', { token })).body.data as any[];

  describe('fork', () => {
    it('copies a public workflow into a private one the caller owns, and adds it to the library', async () => {
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
      expect((await get(owner, original.workflowId)).body.data.stats.forks).toBe(1);
      const entry = (await libraryOf(other)).find((e) => e.workflowId === fork.workflowId);
      expect(entry).toMatchObject({ sourceType: 'forked', sourceUserId: ownerId, userId: otherId });

      // Independent and editable: the copy changes, the original does not.
      const edited = await t.call('PUT', `/v1/workflows/${fork.workflowId}`, {
        token: other,
        body: { name: 'Mine now', manifest: sampleManifest({ intent: 'changed' }) },
      });
      expect(edited.status).toBe(200);
      expect(edited.body.data.currentVersion).toBe('1.0.1');
      expect((await get(owner, original.workflowId)).body.data.manifest.intent).toBe(original.manifest.intent);
    });

    it('takes a name, refuses a second fork with 409 and counts one fork', async () => {
      const original = await createWorkflow(t, owner, { visibility: 'public' });
      const named = await t.call('POST', `/v1/workflows/${original.workflowId}/fork`, { token: other, body: { name: 'My variant' } });
      expect(named.body.data.name).toBe('My variant');
      const again = await t.call('POST', `/v1/workflows/${original.workflowId}/fork`, { token: other, body: {} });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('CONFLICT');
      expect((await get(owner, original.workflowId)).body.data.stats.forks).toBe(1);
    });

    it('lets only one of several concurrent forks by the same user succeed', async () => {
      const original = await createWorkflow(t, owner, { visibility: 'public' });
      const u = await t.token('racer@example.com');
      const results = await Promise.all(
        Array.from({ length: 5 }, () => t.call('POST', `/v1/workflows/${original.workflowId}/fork`, { token: u, body: {} })),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409)).toHaveLength(4);
      expect((await get(owner, original.workflowId)).body.data.stats.forks).toBe(1);
    });

    it('refuses forks the owner disabled (403), of private (404), unknown (404) and own (403) workflows', async () => {
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

    it('keeps forks when the original is deleted or made private', async () => {
      const original = await createWorkflow(t, owner, { visibility: 'public' });
      const fork = (await t.call('POST', `/v1/workflows/${original.workflowId}/fork`, { token: other, body: {} })).body.data;
      await t.call('DELETE', `/v1/workflows/${original.workflowId}`, { token: owner });
      const still = await get(other, fork.workflowId);
      expect(still.status).toBe(200);
      expect(still.body.data.forkedFrom.workflowId).toBe(original.workflowId);
    });
  });

  describe('library', () => {
    it("subscribes to another user's public workflow with the spec 2.5 fields", async () => {
      const w = await createWorkflow(t, owner, { name: 'Subscribable', visibility: 'public' });
      const res = await t.call('POST', `/v1/library/${w.workflowId}`, { token: other, body: {} });
      expect(res.status).toBe(201);
      expect(res.body.data).toEqual({
        libraryId: expect.stringMatching(/^lib_/),
        workflowId: w.workflowId,
        userId: otherId,
        sourceType: 'subscribed',
        sourceUserId: ownerId,
        isActive: true,
        enabledAdapters: ['adapter_one', 'adapter_two', 'adapter_three'],
        workflowName: 'Subscribable',
        workflowVersion: '1.0.0',
        autoUpdate: true,
        available: true,
        unavailableReason: null,
        addedAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect((await get(owner, w.workflowId)).body.data.stats.subscribers).toBe(1);
      const again = await t.call('POST', `/v1/library/${w.workflowId}`, { token: other, body: {} });
      expect(again.status).toBe(409);
      expect((await get(owner, w.workflowId)).body.data.stats.subscribers).toBe(1);
    });

    it('refuses private (404), unknown (404), own (409) workflows and bad adapters (400)', async () => {
      const priv = await createWorkflow(t, owner);
      expect((await t.call('POST', `/v1/library/${priv.workflowId}`, { token: other, body: {} })).status).toBe(404);
      expect((await t.call('POST', '/v1/library/wf_nope', { token: other, body: {} })).status).toBe(404);
      expect((await t.call('POST', `/v1/library/${priv.workflowId}`, { token: owner, body: {} })).status).toBe(409);
      const pub = await createWorkflow(t, owner, { visibility: 'public' });
      const bad = await t.call('POST', `/v1/library/${pub.workflowId}`, { token: other, body: { enabledAdapters: ['adapter_four'] } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toBe('enabledAdapters[0] must be one of adapter_one, adapter_two, adapter_three');
      const notArray = await t.call('POST', `/v1/library/${pub.workflowId}`, { token: other, body: { autoUpdate: 'yes' } });
      expect(notArray.status).toBe(400);
      expect((await libraryOf(other)).some((e) => e.workflowId === pub.workflowId)).toBe(false);
    });

    it('patches isActive and adapters, lists activeOnly, and removes entries', async () => {
      const w = await createWorkflow(t, owner, { visibility: 'public' });
      const u = await t.token('patcher@example.com');
      await t.call('POST', `/v1/library/${w.workflowId}`, { token: u, body: { enabledAdapters: ['adapter_one'], autoUpdate: false } });
      const off = await t.call('PATCH', `/v1/library/${w.workflowId}`, { token: u, body: { isActive: false } });
      expect(off.status).toBe(200);
      expect(off.body.data).toMatchObject({ isActive: false, enabledAdapters: ['adapter_one'], autoUpdate: false });
      const all = await t.call('GET', '/v1/library', { token: u });
      expect(all.body.data).toHaveLength(1);
      const active = await t.call('GET', '/v1/library?activeOnly=true', { token: u });
      expect(active.body.data).toHaveLength(0);
      const on = await t.call('PATCH', `/v1/library/${w.workflowId}`, {
        token: u,
        body: { isActive: true, enabledAdapters: ['adapter_two', 'adapter_three'] },
      });
      expect(on.body.data).toMatchObject({ isActive: true, enabledAdapters: ['adapter_two', 'adapter_three'] });
      expect((await t.call('PATCH', `/v1/library/${w.workflowId}`, { token: u, body: {} })).status).toBe(400);
      expect((await t.call('PATCH', `/v1/library/${w.workflowId}`, { token: u, body: { isActive: 'no' } })).status).toBe(400);
      expect((await t.call('PATCH', '/v1/library/wf_missing', { token: u, body: { isActive: true } })).status).toBe(404);
      const del = await t.call('DELETE', `/v1/library/${w.workflowId}`, { token: u });
      expect(del.status).toBe(200);
      expect(del.body.data).toEqual({ workflowId: w.workflowId, deleted: true });
      expect((await t.call('GET', '/v1/library', { token: u })).body.data).toHaveLength(0);
      expect((await get(owner, w.workflowId)).body.data.stats.subscribers).toBe(0);
      expect((await t.call('DELETE', `/v1/library/${w.workflowId}`, { token: u })).status).toBe(404);
      expect((await t.call('GET', '/v1/library?limit=0', { token: u })).status).toBe(400);
    });

    it('follows new versions with autoUpdate true and stays put with false', async () => {
      const w = await createWorkflow(t, owner, { visibility: 'public' });
      const follower = await t.token('follower@example.com');
      const pinned = await t.token('pinned@example.com');
      await t.call('POST', `/v1/library/${w.workflowId}`, { token: follower, body: {} });
      await t.call('POST', `/v1/library/${w.workflowId}`, { token: pinned, body: { autoUpdate: false } });
      await t.call('PUT', `/v1/workflows/${w.workflowId}`, {
        token: owner,
        body: { name: 'v2', manifest: sampleManifest({ intent: 'second' }), visibility: 'public' },
      });
      const f = (await libraryOf(follower)).find((e) => e.workflowId === w.workflowId);
      const p = (await libraryOf(pinned)).find((e) => e.workflowId === w.workflowId);
      expect(f.workflowVersion).toBe('1.0.1');
      expect(p.workflowVersion).toBe('1.0.0');
      expect(f.workflowName).toBe('v2');
    });

    it("keeps other users' subscriptions, unavailable, while a workflow is private; they cannot read it", async () => {
      const w = await createWorkflow(t, owner, { visibility: 'public' });
      const sub = await t.token('subscriber@example.com');
      await t.call('POST', `/v1/library/${w.workflowId}`, { token: sub, body: {} });
      await t.call('PUT', `/v1/workflows/${w.workflowId}`, {
        token: owner,
        body: { name: 'Now private', manifest: sampleManifest(), visibility: 'private' },
      });
      expect((await libraryOf(sub)).find((e) => e.workflowId === w.workflowId)).toMatchObject({
        available: false,
        unavailableReason: expect.stringMatching(/private/),
      });
      expect((await get(sub, w.workflowId)).status).toBe(404);
      expect((await t.call('GET', `/v1/workflows/${w.workflowId}/manifest`, { token: sub })).status).toBe(404);
      const ownerView = await get(owner, w.workflowId);
      expect(ownerView.body.data.stats.subscribers).toBe(1);
      expect((await libraryOf(owner)).find((e) => e.workflowId === w.workflowId)).toMatchObject({
        available: true,
        unavailableReason: null,
      });
    });

    it("removes everyone's entries when a workflow is deleted", async () => {
      const w = await createWorkflow(t, owner, { visibility: 'public' });
      const sub = await t.token('sub2@example.com');
      await t.call('POST', `/v1/library/${w.workflowId}`, { token: sub, body: {} });
      await t.call('DELETE', `/v1/workflows/${w.workflowId}`, { token: owner });
      expect((await libraryOf(sub)).some((e) => e.workflowId === w.workflowId)).toBe(false);
    });

    it('re-adds an owned workflow whose entry was removed', async () => {
      const w = await createWorkflow(t, owner);
      await t.call('DELETE', `/v1/library/${w.workflowId}`, { token: owner });
      expect((await get(owner, w.workflowId)).status).toBe(200);
      const back = await t.call('POST', `/v1/library/${w.workflowId}`, { token: owner, body: {} });
      expect(back.status).toBe(201);
      expect(back.body.data.sourceType).toBe('owned');
      expect((await get(owner, w.workflowId)).body.data.stats.subscribers).toBe(0);
    });

    it('counts subscriptions on GET /users/me', async () => {
      const u = await t.token('counter@example.com');
      const a = await createWorkflow(t, owner, { visibility: 'public' });
      const b = await createWorkflow(t, owner, { visibility: 'public' });
      await createWorkflow(t, u);
      await t.call('POST', `/v1/library/${a.workflowId}`, { token: u, body: {} });
      await t.call('POST', `/v1/library/${b.workflowId}`, { token: u, body: {} });
      const me = await t.call('GET', '/v1/users/me', { token: u });
      expect(me.body.data).toMatchObject({ workflowCount: 1, subscriptionCount: 2, deploymentCount: 0 });
    });
  });
});
