import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/manifest/adapter-list.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { countsByAdapter } from '../helpers/mcp.js';
import { seedManifest, seedPlan, seedSubscription, seedWorkflow, setVisibility, userIdOf } from '../helpers/seed.js';

/** The deployment routes of spec 4.2 with the shapes of spec 2.4 and the states of spec 3. */
describe('deployment routes', () => {
  let t: TestApp;
  let alice: string;
  let bob: string;
  let aliceId: string;
  let bobId: string;
  let owned: string;
  let owned2: string;
  let bobsPrivate: string;
  let bobsPublic: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { PUBLIC_BASE_URL: 'https://api.example.com/v1' } });
    alice = await t.token('alice@example.com');
    bob = await t.token('bob@example.com');
    aliceId = await userIdOf(t, alice);
    bobId = await userIdOf(t, bob);
    await seedPlan(t, aliceId, 'team');
    await seedPlan(t, bobId, 'team');
    owned = await seedWorkflow(t, aliceId, { name: 'Feature pipeline' });
    owned2 = await seedWorkflow(t, aliceId, {
      name: 'Bug triage',
      versions: [
        { version: '1.0.0', manifest: seedManifest() },
        { version: '1.1.0', manifest: seedManifest() },
      ],
    });
    bobsPrivate = await seedWorkflow(t, bobId, { name: 'Secret', visibility: 'private' });
    bobsPublic = await seedWorkflow(t, bobId, {
      name: 'Shared review',
      visibility: 'public',
      versions: [
        { version: '1.0.0', manifest: seedManifest() },
        { version: '2.0.0', manifest: seedManifest() },
      ],
    });
    await seedSubscription(t, aliceId, bobsPublic, { version: '1.0.0' });
  });
  afterAll(async () => {
    await t?.close();
  });

  const create = (body: Record<string, unknown>, token = alice) => t.call('POST', '/v1/deployments', { token, body });

  const expect400 = (res: { status: number; body: any }, pattern: RegExp) => {
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toMatch(pattern);
  };

  it('creates a deployment with the defaults of spec 4.2 (201)', async () => {
    const res = await create({ name: 'My IDE', workflowIds: [owned, bobsPublic] });
    expect(res.status).toBe(201);
    const d = res.body.data;
    expect(d.deploymentId).toMatch(/^dep_[0-9a-z]{20}$/);
    expect(d).toMatchObject({
      name: 'My IDE',
      description: null,
      status: 'active',
      allowAnonymous: false,
      enabledAdapters: [...ADAPTERS],
      mcpEndpoint: `https://api.example.com/v1/mcp/${d.deploymentId}`,
      usage: { connectionsThisMonth: 0, lastConnectedAt: null },
    });
    expect(d.workflows).toEqual([
      { workflowId: owned, name: 'Feature pipeline', version: '1.0.0', isOwned: true, available: true, unavailableReason: null },
      // A subscription is bundled at the library entry's version, not the author's newest.
      { workflowId: bobsPublic, name: 'Shared review', version: '1.0.0', isOwned: false, available: true, unavailableReason: null },
    ]);
    expect(new Date(d.createdAt).toISOString()).toBe(d.createdAt);
    expect(d.updatedAt).toBe(d.createdAt);
  });

  it('takes description, enabledAdapters (deduplicated, in canonical order) and allowAnonymous', async () => {
    const res = await create({
      name: 'x',
      description: 'for Cursor',
      workflowIds: [owned2],
      enabledAdapters: ['adapter_three', 'adapter_two', 'adapter_two'],
      allowAnonymous: true,
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      description: 'for Cursor',
      enabledAdapters: ['adapter_two', 'adapter_three'],
      allowAnonymous: true,
    });
    expect(res.body.data.workflows).toEqual([
      { workflowId: owned2, name: 'Bug triage', version: '1.1.0', isOwned: true, available: true, unavailableReason: null },
    ]);
  });

  it('refuses a bad name: 101 characters, empty, blank', async () => {
    expect((await create({ name: 'n'.repeat(100), workflowIds: [owned] })).status).toBe(201);
    expect400(await create({ name: 'n'.repeat(101), workflowIds: [owned] }), /name must be at most 100 characters/);
    expect400(await create({ name: '', workflowIds: [owned] }), /name must not be empty/);
    expect400(await create({ name: '   ', workflowIds: [owned] }), /name must not be empty/);
    expect400(await create({ workflowIds: [owned] }), /name is required/);
    expect400(await create({ name: 5, workflowIds: [owned] }), /name must be a string/);
  });

  it('refuses workflowIds that are empty, unknown, private to another user or repeated, naming the ids', async () => {
    expect400(await create({ name: 'x', workflowIds: [] }), /at least one workflow/);
    const unknown = await create({ name: 'x', workflowIds: [owned, 'wf_doesnotexist'] });
    expect400(unknown, /not: wf_doesnotexist$/);
    expect(unknown.body.error.details.invalidIds).toEqual(['wf_doesnotexist']);
    const foreign = await create({ name: 'x', workflowIds: [bobsPrivate] });
    expect400(foreign, new RegExp(`not: ${bobsPrivate}$`));
    // Another user's private workflow reads exactly like an unknown one.
    expect(foreign.body.error.message.replace(bobsPrivate, 'ID')).toBe(unknown.body.error.message.replace('wf_doesnotexist', 'ID'));
    expect400(await create({ name: 'x', workflowIds: [owned, owned] }), /more than once/);
    expect400(await create({ name: 'x', workflowIds: owned }), /workflowIds must be an array/);
  });

  it('refuses a public workflow that is not in the library; a kept subscription that became private is taken, unavailable', async () => {
    const other = await seedWorkflow(t, bobId, { name: 'Public but not subscribed', visibility: 'public' });
    expect400(await create({ name: 'x', workflowIds: [other] }), new RegExp(other));
    await seedSubscription(t, aliceId, other);
    expect((await create({ name: 'x', workflowIds: [other] })).status).toBe(201);
    await setVisibility(t, other, 'private');
    const again = await create({ name: 'x', workflowIds: [other] });
    expect(again.status).toBe(201);
    expect(again.body.data.workflows).toMatchObject([
      { workflowId: other, available: false, unavailableReason: expect.stringMatching(/private/) },
    ]);
    // Another user's private workflow outside the library stays refused like an unknown id.
    const hidden = await seedWorkflow(t, bobId, { name: 'Never public' });
    expect400(await create({ name: 'x', workflowIds: [hidden] }), new RegExp(hidden));
  });

  it('refuses an unknown adapter and unknown body fields', async () => {
    expect400(
      await create({ name: 'x', workflowIds: [owned], enabledAdapters: ['adapter_nine'] }),
      /enabledAdapters\[0\] must be one of adapter_one, adapter_two, adapter_three/,
    );
    expect400(await create({ name: 'x', workflowIds: [owned], status: 'inactive' }), /status is not a field/);
  });

  it('requires a token', async () => {
    const res = await t.call('GET', '/v1/deployments');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  describe('list', () => {
    let tok: string;
    const ids: string[] = [];
    beforeAll(async () => {
      tok = await t.token('lister@example.com');
      const uid = await userIdOf(t, tok);
      await seedPlan(t, uid, 'team');
      const wf = await seedWorkflow(t, uid);
      for (const name of ['one', 'two', 'three']) {
        const res = await create({ name, workflowIds: [wf] }, tok);
        ids.push(res.body.data.deploymentId);
      }
      await t.call('POST', `/v1/deployments/${ids[1]}/deactivate`, { token: tok });
    });

    it('lists newest first with usage and pagination', async () => {
      const res = await t.call('GET', '/v1/deployments', { token: tok });
      expect(res.status).toBe(200);
      expect(res.body.data.map((d: any) => d.name)).toEqual(['three', 'two', 'one']);
      expect(res.body.pagination).toEqual({ nextCursor: null, hasMore: false, count: 3 });
      for (const d of res.body.data) expect(d.usage).toEqual({ connectionsThisMonth: 0, lastConnectedAt: null });
    });

    it('filters by status', async () => {
      const active = await t.call('GET', '/v1/deployments?status=active', { token: tok });
      expect(active.body.data.map((d: any) => d.name)).toEqual(['three', 'one']);
      const inactive = await t.call('GET', '/v1/deployments?status=inactive', { token: tok });
      expect(inactive.body.data.map((d: any) => d.deploymentId)).toEqual([ids[1]]);
    });

    it('pages with limit and cursor', async () => {
      const first = await t.call('GET', '/v1/deployments?limit=2', { token: tok });
      expect(first.body.pagination).toMatchObject({ hasMore: true, count: 2 });
      const second = await t.call('GET', `/v1/deployments?limit=2&cursor=${first.body.pagination.nextCursor}`, { token: tok });
      expect(second.body.data.map((d: any) => d.name)).toEqual(['one']);
      expect(second.body.pagination).toEqual({ nextCursor: null, hasMore: false, count: 1 });
    });

    it('refuses status=paused, limit=101 and a foreign cursor', async () => {
      expect400(await t.call('GET', '/v1/deployments?status=paused', { token: tok }), /status must be one of active, inactive/);
      expect400(await t.call('GET', '/v1/deployments?limit=101', { token: tok }), /limit must be an integer from 1 to 100/);
      expect400(await t.call('GET', '/v1/deployments?limit=0', { token: tok }), /limit must be an integer from 1 to 100/);
      expect400(await t.call('GET', '/v1/deployments?cursor=abc', { token: tok }), /cursor is not valid/);
      // Well-formed, but a time no date can hold.
      const farOff = Buffer.from(JSON.stringify(['deployments', 1e20, 'dep_x'])).toString('base64url');
      expect400(await t.call('GET', `/v1/deployments?cursor=${farOff}`, { token: tok }), /cursor is not valid/);
    });

    it('pages with status and cursor together', async () => {
      const first = await t.call('GET', '/v1/deployments?status=active&limit=1', { token: tok });
      expect(first.body.data.map((d: any) => d.name)).toEqual(['three']);
      const second = await t.call('GET', `/v1/deployments?status=active&limit=1&cursor=${first.body.pagination.nextCursor}`, {
        token: tok,
      });
      expect(second.body.data.map((d: any) => d.name)).toEqual(['one']);
      expect(second.body.pagination.hasMore).toBe(false);
    });

    it("shows nobody else's deployments", async () => {
      const res = await t.call('GET', '/v1/deployments', { token: bob });
      expect(res.body.data.some((d: any) => ids.includes(d.deploymentId))).toBe(false);
    });
  });

  describe('one deployment', () => {
    let id: string;
    beforeAll(async () => {
      id = (await create({ name: 'Editable', description: 'first', workflowIds: [owned] })).body.data.deploymentId;
    });

    it('gets it; another user gets 404 as for an unknown id', async () => {
      const res = await t.call('GET', `/v1/deployments/${id}`, { token: alice });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ deploymentId: id, name: 'Editable', usage: { connectionsThisMonth: 0 } });
      const foreign = await t.call('GET', `/v1/deployments/${id}`, { token: bob });
      expect(foreign.status).toBe(404);
      expect(foreign.body.error.code).toBe('NOT_FOUND');
      const unknown = await t.call('GET', '/v1/deployments/dep_unknown', { token: alice });
      expect(unknown.status).toBe(404);
      for (const [method, path, body] of [
        ['PUT', `/v1/deployments/${id}`, { name: 'x' }],
        ['POST', `/v1/deployments/${id}/adapters`, { adapter: 'adapter_one', enabled: false }],
        ['POST', `/v1/deployments/${id}/deactivate`, undefined],
        ['DELETE', `/v1/deployments/${id}`, undefined],
        ['GET', `/v1/deployments/${id}/usage`, undefined],
      ] as const) {
        expect((await t.call(method, path, { token: bob, body })).status, `${method} ${path}`).toBe(404);
      }
    });

    it('updates fields independently; description null removes it', async () => {
      const renamed = await t.call('PUT', `/v1/deployments/${id}`, { token: alice, body: { name: 'Renamed' } });
      expect(renamed.status).toBe(200);
      expect(renamed.body.data).toMatchObject({ name: 'Renamed', description: 'first', allowAnonymous: false });
      expect(renamed.body.data.updatedAt >= renamed.body.data.createdAt).toBe(true);
      const cleared = await t.call('PUT', `/v1/deployments/${id}`, { token: alice, body: { description: null, allowAnonymous: true } });
      expect(cleared.body.data).toMatchObject({ name: 'Renamed', description: null, allowAnonymous: true });
      const same = await t.call('PUT', `/v1/deployments/${id}`, { token: alice, body: {} });
      expect(same.body.data).toEqual(cleared.body.data);
      const adapters = await t.call('PUT', `/v1/deployments/${id}`, { token: alice, body: { enabledAdapters: ['adapter_one'] } });
      expect(adapters.body.data.enabledAdapters).toEqual(['adapter_one']);
    });

    it('re-checks workflowIds on update and keeps their order', async () => {
      const res = await t.call('PUT', `/v1/deployments/${id}`, { token: alice, body: { workflowIds: [bobsPublic, owned2] } });
      expect(res.status).toBe(200);
      expect(res.body.data.workflows.map((w: any) => w.workflowId)).toEqual([bobsPublic, owned2]);
      expect400(
        await t.call('PUT', `/v1/deployments/${id}`, { token: alice, body: { workflowIds: [bobsPrivate] } }),
        new RegExp(bobsPrivate),
      );
      expect400(await t.call('PUT', `/v1/deployments/${id}`, { token: alice, body: { workflowIds: [] } }), /at least one/);
      expect400(await t.call('PUT', `/v1/deployments/${id}`, { token: alice, body: { name: null } }), /name cannot be null/);
      expect400(await t.call('PUT', `/v1/deployments/${id}`, { token: alice, body: { name: 'y'.repeat(101) } }), /at most 100/);
      expect400(
        await t.call('PUT', `/v1/deployments/${id}`, { token: alice, body: { enabledAdapters: ['adapter_nine'] } }),
        /must be one of/,
      );
      const after = await t.call('GET', `/v1/deployments/${id}`, { token: alice });
      expect(after.body.data.workflows.map((w: any) => w.workflowId)).toEqual([bobsPublic, owned2]);
    });

    it('enables and disables single adapters', async () => {
      await t.call('PUT', `/v1/deployments/${id}`, {
        token: alice,
        body: { enabledAdapters: ['adapter_one', 'adapter_two', 'adapter_three'] },
      });
      const off = await t.call('POST', `/v1/deployments/${id}/adapters`, {
        token: alice,
        body: { adapter: 'adapter_two', enabled: false },
      });
      expect(off.status).toBe(200);
      expect(off.body.data).toEqual({ deploymentId: id, enabledAdapters: ['adapter_one', 'adapter_three'] });
      const again = await t.call('POST', `/v1/deployments/${id}/adapters`, {
        token: alice,
        body: { adapter: 'adapter_two', enabled: false },
      });
      expect(again.body.data.enabledAdapters).toEqual(['adapter_one', 'adapter_three']);
      const on = await t.call('POST', `/v1/deployments/${id}/adapters`, { token: alice, body: { adapter: 'adapter_two', enabled: true } });
      expect(on.body.data.enabledAdapters).toEqual(['adapter_one', 'adapter_two', 'adapter_three']);
      expect400(
        await t.call('POST', `/v1/deployments/${id}/adapters`, { token: alice, body: { adapter: 'adapter_nine', enabled: true } }),
        /adapter must be one of/,
      );
      expect400(
        await t.call('POST', `/v1/deployments/${id}/adapters`, { token: alice, body: { adapter: 'adapter_one' } }),
        /enabled is required/,
      );
      expect400(
        await t.call('POST', `/v1/deployments/${id}/adapters`, { token: alice, body: { adapter: 'adapter_one', enabled: 'yes' } }),
        /enabled must be a boolean/,
      );
    });

    it('deactivates and activates (spec 3), idempotently', async () => {
      const off = await t.call('POST', `/v1/deployments/${id}/deactivate`, { token: alice });
      expect(off.status).toBe(200);
      expect(off.body.data).toMatchObject({ deploymentId: id, status: 'inactive' });
      expect((await t.call('POST', `/v1/deployments/${id}/deactivate`, { token: alice })).body.data.status).toBe('inactive');
      expect((await t.call('GET', `/v1/deployments/${id}`, { token: alice })).body.data.status).toBe('inactive');
      const on = await t.call('POST', `/v1/deployments/${id}/activate`, { token: alice });
      expect(on.body.data.status).toBe('active');
      expect((await t.call('POST', `/v1/deployments/${id}/activate`, { token: alice })).body.data.status).toBe('active');
    });

    it('reports usage for day, week and month; refuses period=year', async () => {
      const month = await t.call('GET', `/v1/deployments/${id}/usage`, { token: alice });
      expect(month.status).toBe(200);
      const today = new Date().toISOString().slice(0, 10);
      expect(month.body.data).toMatchObject({
        deploymentId: id,
        period: 'month',
        to: today,
        connections: { total: 0, limit: 250_000, remaining: 250_000 },
        byAdapter: countsByAdapter({}),
      });
      expect(month.body.data.from).toBe(`${today.slice(0, 8)}01`);
      expect(month.body.data.byDay.at(-1)).toEqual({ date: today, count: 0 });
      expect(month.body.data.byDay).toHaveLength(Number(today.slice(8, 10)));
      const day = await t.call('GET', `/v1/deployments/${id}/usage?period=day`, { token: alice });
      expect(day.body.data.byDay).toEqual([{ date: today, count: 0 }]);
      const week = await t.call('GET', `/v1/deployments/${id}/usage?period=week`, { token: alice });
      expect(week.body.data.byDay.length).toBeGreaterThanOrEqual(1);
      expect(week.body.data.byDay.length).toBeLessThanOrEqual(7);
      expect(new Date(`${week.body.data.from}T00:00:00Z`).getUTCDay()).toBe(1);
      expect400(await t.call('GET', `/v1/deployments/${id}/usage?period=year`, { token: alice }), /period must be one of day, week, month/);
    });

    it('deletes for good', async () => {
      const res = await t.call('DELETE', `/v1/deployments/${id}`, { token: alice });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ deploymentId: id, deleted: true });
      expect((await t.call('GET', `/v1/deployments/${id}`, { token: alice })).status).toBe(404);
      expect((await t.call('DELETE', `/v1/deployments/${id}`, { token: alice })).status).toBe(404);
      expect((await t.call('POST', `/v1/deployments/${id}/activate`, { token: alice })).status).toBe(404);
    });
  });

  it('keeps a subscribed workflow in the deployment, marked unavailable, while it is not public', async () => {
    const wf = await seedWorkflow(t, bobId, { name: 'Going private', visibility: 'public' });
    await seedSubscription(t, aliceId, wf);
    const dep = (await create({ name: 'x', workflowIds: [owned, wf] })).body.data;
    expect(dep.workflows).toHaveLength(2);
    await setVisibility(t, wf, 'private');
    const after = await t.call('GET', `/v1/deployments/${dep.deploymentId}`, { token: alice });
    expect(after.body.data.workflows.map((w: any) => [w.workflowId, w.available])).toEqual([
      [owned, true],
      [wf, false],
    ]);
    await setVisibility(t, wf, 'public');
    const back = await t.call('GET', `/v1/deployments/${dep.deploymentId}`, { token: alice });
    expect(back.body.data.workflows.map((w: any) => [w.workflowId, w.available])).toEqual([
      [owned, true],
      [wf, true],
    ]);
  });
});
