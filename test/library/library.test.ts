import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { serviceTest } from '../helpers/service-test.js';
import { ADAPTERS } from '../../src/manifest/adapter-list.js';
import { createWorkflow, libraryEntry, libraryOf, sampleManifest } from '../helpers/workflows.js';
import { userIdOf } from '../helpers/seed.js';

/** The library (spec 2.5, 3, 4.5): subscriptions, owned entries and what they follow. */
describe('the library', () => {
  const get = (t: TestApp, token: string, id: string) => t.call('GET', `/v1/workflows/${id}`, { token });
  /** The subscriber count of spec 2.3's stats, as the owner reads it. */
  const subscribersOf = async (t: TestApp, owner: string, id: string) => (await get(t, owner, id)).body.data.stats.subscribers;

  serviceTest("subscribes to another user's public workflow with the spec 2.5 fields", async ({ service: t, alice: owner, bob: other }) => {
    const w = await createWorkflow(t, owner, { name: 'Subscribable', visibility: 'public' });
    const [ownerId, otherId] = [await userIdOf(t, owner), await userIdOf(t, other)];
    const res = await t.call('POST', `/v1/library/${w.workflowId}`, { token: other, body: {} });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      libraryId: expect.stringMatching(/^lib_/),
      workflowId: w.workflowId,
      userId: otherId,
      sourceType: 'subscribed',
      sourceUserId: ownerId,
      isActive: true,
      enabledAdapters: [...ADAPTERS],
      workflowName: 'Subscribable',
      workflowVersion: '1.0.0',
      autoUpdate: true,
      available: true,
      unavailableReason: null,
      update: null,
      addedAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(await subscribersOf(t, owner, w.workflowId)).toBe(1);
    const again = await t.call('POST', `/v1/library/${w.workflowId}`, { token: other, body: {} });
    expect(again.status).toBe(409);
    expect(await subscribersOf(t, owner, w.workflowId)).toBe(1);
  });

  serviceTest(
    'refuses private (404), unknown (404), own (409) workflows and bad adapters (400)',
    async ({ service: t, alice: owner, bob: other }) => {
      const priv = await createWorkflow(t, owner);
      expect((await t.call('POST', `/v1/library/${priv.workflowId}`, { token: other, body: {} })).status).toBe(404);
      expect((await t.call('POST', '/v1/library/wf_nope', { token: other, body: {} })).status).toBe(404);
      expect((await t.call('POST', `/v1/library/${priv.workflowId}`, { token: owner, body: {} })).status).toBe(409);
      const pub = await createWorkflow(t, owner, { visibility: 'public' });
      const bad = await t.call('POST', `/v1/library/${pub.workflowId}`, { token: other, body: { enabledAdapters: ['adapter_nine'] } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toBe(`enabledAdapters[0] must be one of ${ADAPTERS.join(', ')}`);
      const notArray = await t.call('POST', `/v1/library/${pub.workflowId}`, { token: other, body: { autoUpdate: 'yes' } });
      expect(notArray.status).toBe(400);
      expect((await libraryOf(t, other)).some((e) => e.workflowId === pub.workflowId)).toBe(false);
    },
  );

  serviceTest('patches isActive and adapters, lists activeOnly, and removes entries', async ({ service: t, alice: owner }) => {
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
    expect(await subscribersOf(t, owner, w.workflowId)).toBe(0);
    expect((await t.call('DELETE', `/v1/library/${w.workflowId}`, { token: u })).status).toBe(404);
    expect((await t.call('GET', '/v1/library?limit=0', { token: u })).status).toBe(400);
  });

  serviceTest('follows new versions with autoUpdate true and stays put with false', async ({ service: t, alice: owner }) => {
    const w = await createWorkflow(t, owner, { visibility: 'public' });
    const follower = await t.token('follower@example.com');
    const pinned = await t.token('pinned@example.com');
    await t.call('POST', `/v1/library/${w.workflowId}`, { token: follower, body: {} });
    await t.call('POST', `/v1/library/${w.workflowId}`, { token: pinned, body: { autoUpdate: false } });
    await t.call('PUT', `/v1/workflows/${w.workflowId}`, {
      token: owner,
      body: { name: 'v2', manifest: sampleManifest({ intent: 'second' }), visibility: 'public' },
    });
    const f = await libraryEntry(t, follower, w.workflowId);
    const p = await libraryEntry(t, pinned, w.workflowId);
    expect(f.workflowVersion).toBe('1.0.1');
    expect(p.workflowVersion).toBe('1.0.0');
    expect(f.workflowName).toBe('v2');
  });

  serviceTest(
    "keeps other users' subscriptions, unavailable, while a workflow is private; they cannot read it",
    async ({ service: t, alice: owner }) => {
      const w = await createWorkflow(t, owner, { visibility: 'public' });
      const sub = await t.token('subscriber@example.com');
      await t.call('POST', `/v1/library/${w.workflowId}`, { token: sub, body: {} });
      await t.call('PUT', `/v1/workflows/${w.workflowId}`, {
        token: owner,
        body: { name: 'Now private', manifest: sampleManifest(), visibility: 'private' },
      });
      expect(await libraryEntry(t, sub, w.workflowId)).toMatchObject({
        available: false,
        unavailableReason: expect.stringMatching(/private/),
      });
      expect((await get(t, sub, w.workflowId)).status).toBe(404);
      expect((await t.call('GET', `/v1/workflows/${w.workflowId}/manifest`, { token: sub })).status).toBe(404);
      const ownerView = await get(t, owner, w.workflowId);
      expect(ownerView.body.data.stats.subscribers).toBe(1);
      expect(await libraryEntry(t, owner, w.workflowId)).toMatchObject({
        available: true,
        unavailableReason: null,
      });
    },
  );

  serviceTest("removes everyone's entries when a workflow is deleted", async ({ service: t, alice: owner }) => {
    const w = await createWorkflow(t, owner, { visibility: 'public' });
    const sub = await t.token('sub2@example.com');
    await t.call('POST', `/v1/library/${w.workflowId}`, { token: sub, body: {} });
    await t.call('DELETE', `/v1/workflows/${w.workflowId}`, { token: owner });
    expect((await libraryOf(t, sub)).some((e) => e.workflowId === w.workflowId)).toBe(false);
  });

  serviceTest('re-adds an owned workflow whose entry was removed', async ({ service: t, alice: owner }) => {
    const w = await createWorkflow(t, owner);
    await t.call('DELETE', `/v1/library/${w.workflowId}`, { token: owner });
    expect((await get(t, owner, w.workflowId)).status).toBe(200);
    const back = await t.call('POST', `/v1/library/${w.workflowId}`, { token: owner, body: {} });
    expect(back.status).toBe(201);
    expect(back.body.data.sourceType).toBe('owned');
    expect(await subscribersOf(t, owner, w.workflowId)).toBe(0);
  });

  serviceTest('counts subscriptions on GET /users/me', async ({ service: t, alice: owner }) => {
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
