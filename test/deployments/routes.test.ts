import { describe, expect } from 'vitest';
import { ADAPTERS } from '../../src/manifest/adapter-list.js';
import type { TestApp } from '../helpers/app.js';
import { countsByAdapter } from '../helpers/mcp.js';
import { seedManifest, seedPlan, seedSubscription, seedWorkflow, setVisibility, userIdOf } from '../helpers/seed.js';
import { serviceTestWith } from '../helpers/service-test.js';

/** Alice and bob (team plan): alice's two workflows, bob's private and public ones (alice subscribed to the public one at 1.0.0). */
interface World {
  aliceId: string;
  bobId: string;
  owned: string;
  owned2: string;
  bobsPrivate: string;
  bobsPublic: string;
}

const creator =
  (t: TestApp, alice: string) =>
  (body: Record<string, unknown>, token = alice) =>
    t.call('POST', '/v1/deployments', { token, body });

const test = serviceTestWith({ PUBLIC_BASE_URL: 'https://api.example.com/v1' }).extend<{
  world: World;
  create: ReturnType<typeof creator>;
  lister: { tok: string; ids: string[] };
  editable: string;
}>({
  world: [
    async ({ service: t, alice, bob }, use) => {
      const aliceId = await userIdOf(t, alice);
      const bobId = await userIdOf(t, bob);
      await seedPlan(t, aliceId, 'team');
      await seedPlan(t, bobId, 'team');
      const owned = await seedWorkflow(t, aliceId, { name: 'Feature pipeline' });
      const owned2 = await seedWorkflow(t, aliceId, {
        name: 'Bug triage',
        versions: [
          { version: '1.0.0', manifest: seedManifest() },
          { version: '1.1.0', manifest: seedManifest() },
        ],
      });
      const bobsPrivate = await seedWorkflow(t, bobId, { name: 'Secret', visibility: 'private' });
      const bobsPublic = await seedWorkflow(t, bobId, {
        name: 'Shared review',
        visibility: 'public',
        versions: [
          { version: '1.0.0', manifest: seedManifest() },
          { version: '2.0.0', manifest: seedManifest() },
        ],
      });
      await seedSubscription(t, aliceId, bobsPublic, { version: '1.0.0' });
      await use({ aliceId, bobId, owned, owned2, bobsPrivate, bobsPublic });
    },
    { scope: 'file' },
  ],
  /** Creates a deployment as alice, or as the given token's user. */
  create: [async ({ service, alice }, use) => use(creator(service, alice)), { scope: 'file' }],
  /** A team-plan user with deployments "one", "two" (inactive) and "three". */
  lister: [
    async ({ service: t, create }, use) => {
      const ids: string[] = [];
      const tok = await t.token('lister@example.com');
      const uid = await userIdOf(t, tok);
      await seedPlan(t, uid, 'team');
      const wf = await seedWorkflow(t, uid);
      for (const name of ['one', 'two', 'three']) {
        const res = await create({ name, workflowIds: [wf] }, tok);
        ids.push(res.body.data.deploymentId);
      }
      await t.call('POST', `/v1/deployments/${ids[1]}/deactivate`, { token: tok });
      await use({ tok, ids });
    },
    { scope: 'file' },
  ],
  /** Alice's deployment "Editable" of her first workflow, which the tests of one deployment change in turn. */
  editable: [
    async ({ create, world: { owned } }, use) =>
      use((await create({ name: 'Editable', description: 'first', workflowIds: [owned] })).body.data.deploymentId),
    { scope: 'file' },
  ],
});

const expect400 = (res: { status: number; body: any }, pattern: RegExp) => {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.success).toBe(false);
  expect(res.body.error.code).toBe('VALIDATION_ERROR');
  expect(res.body.error.message).toMatch(pattern);
};

/** The deployment routes of spec 4.2 with the shapes of spec 2.4 and the states of spec 3. */
describe('deployment routes', () => {
  test('creates a deployment with the defaults of spec 4.2 (201)', async ({ create, world: { owned, bobsPublic } }) => {
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

  test('takes description, enabledAdapters (deduplicated, in canonical order) and allowAnonymous', async ({
    create,
    world: { owned2 },
  }) => {
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

  test('refuses a bad name: 101 characters, empty, blank', async ({ create, world: { owned } }) => {
    expect((await create({ name: 'n'.repeat(100), workflowIds: [owned] })).status).toBe(201);
    expect400(await create({ name: 'n'.repeat(101), workflowIds: [owned] }), /name must be at most 100 characters/);
    expect400(await create({ name: '', workflowIds: [owned] }), /name must not be empty/);
    expect400(await create({ name: '   ', workflowIds: [owned] }), /name must not be empty/);
    expect400(await create({ workflowIds: [owned] }), /name is required/);
    expect400(await create({ name: 5, workflowIds: [owned] }), /name must be a string/);
  });

  test('refuses workflowIds that are empty, unknown, private to another user or repeated, naming the ids', async ({
    create,
    world: { owned, bobsPrivate },
  }) => {
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

  test('refuses a public workflow that is not in the library; a kept subscription that became private is taken, unavailable', async ({
    service: t,
    create,
    world: { aliceId, bobId },
  }) => {
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

  test('refuses an unknown adapter and unknown body fields', async ({ create, world: { owned } }) => {
    expect400(
      await create({ name: 'x', workflowIds: [owned], enabledAdapters: ['adapter_nine'] }),
      /enabledAdapters\[0\] must be one of adapter_one, adapter_two, adapter_three/,
    );
    expect400(await create({ name: 'x', workflowIds: [owned], status: 'inactive' }), /status is not a field/);
  });

  test('requires a token', async ({ service: t }) => {
    const res = await t.call('GET', '/v1/deployments');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  describe('list', () => {
    test('lists newest first with usage and pagination', async ({ service: t, lister: { tok } }) => {
      const res = await t.call('GET', '/v1/deployments', { token: tok });
      expect(res.status).toBe(200);
      expect(res.body.data.map((d: any) => d.name)).toEqual(['three', 'two', 'one']);
      expect(res.body.pagination).toEqual({ nextCursor: null, hasMore: false, count: 3 });
      for (const d of res.body.data) expect(d.usage).toEqual({ connectionsThisMonth: 0, lastConnectedAt: null });
    });

    test('filters by status', async ({ service: t, lister: { tok, ids } }) => {
      const active = await t.call('GET', '/v1/deployments?status=active', { token: tok });
      expect(active.body.data.map((d: any) => d.name)).toEqual(['three', 'one']);
      const inactive = await t.call('GET', '/v1/deployments?status=inactive', { token: tok });
      expect(inactive.body.data.map((d: any) => d.deploymentId)).toEqual([ids[1]]);
    });

    test('pages with limit and cursor', async ({ service: t, lister: { tok } }) => {
      const first = await t.call('GET', '/v1/deployments?limit=2', { token: tok });
      expect(first.body.pagination).toMatchObject({ hasMore: true, count: 2 });
      const second = await t.call('GET', `/v1/deployments?limit=2&cursor=${first.body.pagination.nextCursor}`, { token: tok });
      expect(second.body.data.map((d: any) => d.name)).toEqual(['one']);
      expect(second.body.pagination).toEqual({ nextCursor: null, hasMore: false, count: 1 });
    });

    test('refuses status=paused, limit=101 and a foreign cursor', async ({ service: t, lister: { tok } }) => {
      expect400(await t.call('GET', '/v1/deployments?status=paused', { token: tok }), /status must be one of active, inactive/);
      expect400(await t.call('GET', '/v1/deployments?limit=101', { token: tok }), /limit must be an integer from 1 to 100/);
      expect400(await t.call('GET', '/v1/deployments?limit=0', { token: tok }), /limit must be an integer from 1 to 100/);
      expect400(await t.call('GET', '/v1/deployments?cursor=abc', { token: tok }), /cursor is not valid/);
      // Well-formed, but a time no date can hold.
      const farOff = Buffer.from(JSON.stringify(['deployments', 1e20, 'dep_x'])).toString('base64url');
      expect400(await t.call('GET', `/v1/deployments?cursor=${farOff}`, { token: tok }), /cursor is not valid/);
    });

    test('pages with status and cursor together', async ({ service: t, lister: { tok } }) => {
      const first = await t.call('GET', '/v1/deployments?status=active&limit=1', { token: tok });
      expect(first.body.data.map((d: any) => d.name)).toEqual(['three']);
      const second = await t.call('GET', `/v1/deployments?status=active&limit=1&cursor=${first.body.pagination.nextCursor}`, {
        token: tok,
      });
      expect(second.body.data.map((d: any) => d.name)).toEqual(['one']);
      expect(second.body.pagination.hasMore).toBe(false);
    });

    test("shows nobody else's deployments", async ({ service: t, bob, lister: { ids } }) => {
      const res = await t.call('GET', '/v1/deployments', { token: bob });
      expect(res.body.data.some((d: any) => ids.includes(d.deploymentId))).toBe(false);
    });
  });

  describe('one deployment', () => {
    test('gets it; another user gets 404 as for an unknown id', async ({ service: t, alice, bob, editable: id }) => {
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

    test('updates fields independently; description null removes it', async ({ service: t, alice, editable: id }) => {
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

    test('re-checks workflowIds on update and keeps their order', async ({
      service: t,
      alice,
      world: { owned2, bobsPrivate, bobsPublic },
      editable: id,
    }) => {
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

    test('enables and disables single adapters', async ({ service: t, alice, editable: id }) => {
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

    test('deactivates and activates (spec 3), idempotently', async ({ service: t, alice, editable: id }) => {
      const off = await t.call('POST', `/v1/deployments/${id}/deactivate`, { token: alice });
      expect(off.status).toBe(200);
      expect(off.body.data).toMatchObject({ deploymentId: id, status: 'inactive' });
      expect((await t.call('POST', `/v1/deployments/${id}/deactivate`, { token: alice })).body.data.status).toBe('inactive');
      expect((await t.call('GET', `/v1/deployments/${id}`, { token: alice })).body.data.status).toBe('inactive');
      const on = await t.call('POST', `/v1/deployments/${id}/activate`, { token: alice });
      expect(on.body.data.status).toBe('active');
      expect((await t.call('POST', `/v1/deployments/${id}/activate`, { token: alice })).body.data.status).toBe('active');
    });

    test('reports usage for day, week and month; refuses period=year', async ({ service: t, alice, editable: id }) => {
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

    test('deletes for good', async ({ service: t, alice, editable: id }) => {
      const res = await t.call('DELETE', `/v1/deployments/${id}`, { token: alice });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ deploymentId: id, deleted: true });
      expect((await t.call('GET', `/v1/deployments/${id}`, { token: alice })).status).toBe(404);
      expect((await t.call('DELETE', `/v1/deployments/${id}`, { token: alice })).status).toBe(404);
      expect((await t.call('POST', `/v1/deployments/${id}/activate`, { token: alice })).status).toBe(404);
    });
  });

  test('keeps a subscribed workflow in the deployment, marked unavailable, while it is not public', async ({
    service: t,
    alice,
    create,
    world: { aliceId, bobId, owned },
  }) => {
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
