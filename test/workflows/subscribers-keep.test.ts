import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { serviceTest } from '../helpers/service-test.js';
import { createWorkflow, libraryEntry, sampleManifest } from '../helpers/workflows.js';

/**
 * An update changes only what it mentions, and a private spell hides a workflow from other users
 * without taking anything of theirs: their library entries and deployments keep it, unavailable,
 * and get it back when it is public again. Deletion still removes it from them.
 */

/** The owner of the workflows and their subscriber. */
const test = serviceTest.extend<{ owner: string; sub: string }>({
  owner: [async ({ service: t }, use) => use(await t.token('keep-owner@example.com')), { scope: 'file' }],
  sub: [async ({ service: t }, use) => use(await t.token('keep-subscriber@example.com')), { scope: 'file' }],
});

describe('updates keep what they do not mention; subscribers keep their data', () => {
  async function deploymentWorkflows(t: TestApp, sub: string, deploymentId: string) {
    const res = await t.call('GET', `/v1/deployments/${deploymentId}`, { token: sub });
    expect(res.status).toBe(200);
    return res.body.data.workflows as any[];
  }

  /** The manifests the subscriber's endpoint offers, through the official MCP client. */
  async function offeredResources(t: TestApp, sub: string, deploymentId: string): Promise<string[]> {
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1/v1/mcp/${deploymentId}`), {
      fetch: (url: string | URL, init?: RequestInit) => t.app.fetch(new Request(url, init)),
      requestInit: { headers: { authorization: `Bearer ${sub}` } },
    });
    const client = new Client({ name: 'keep-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { resources } = await client.listResources();
      const { tools } = await client.listTools();
      expect(tools.length > 0).toBe(resources.length > 0);
      // Each offered workflow is served twice: its manifest, and the same plan as a skill.
      const manifests = resources.map((r) => r.uri).filter((uri) => uri.startsWith('workflow://'));
      expect(resources.filter((r) => r.uri.startsWith('skill://'))).toHaveLength(manifests.length);
      return manifests;
    } finally {
      await client.close();
    }
  }

  async function subscribedSetup(t: TestApp, owner: string, sub: string, name: string) {
    const w = await createWorkflow(t, owner, {
      name,
      visibility: 'public',
      description: 'Kept words',
      category: 'quality',
      tags: ['a', 'b'],
      allowForks: false,
    });
    expect((await t.call('POST', `/v1/library/${w.workflowId}`, { token: sub, body: {} })).status).toBe(201);
    const mine = await createWorkflow(t, sub, { name: `${name} (own)` });
    const dep = await t.call('POST', '/v1/deployments', {
      token: sub,
      body: { name: `${name} deployment`, workflowIds: [mine.workflowId, w.workflowId] },
    });
    expect(dep.status, dep.text).toBe(201);
    return { workflowId: w.workflowId as string, mine: mine.workflowId as string, deploymentId: dep.body.data.deploymentId as string };
  }

  test('a PUT that leaves out visibility (and every other optional field) keeps them, and the subscriber keeps entry and deployment', async ({
    service: t,
    owner,
    sub,
  }) => {
    const { workflowId, deploymentId } = await subscribedSetup(t, owner, sub, 'Omitted fields');
    const put = await t.call('PUT', `/v1/workflows/${workflowId}`, { token: owner, body: { name: 'Renamed only' } });
    expect(put.status, put.text).toBe(200);
    expect(put.body.data).toMatchObject({
      name: 'Renamed only',
      visibility: 'public',
      description: 'Kept words',
      category: 'quality',
      tags: ['a', 'b'],
      allowForks: false,
      // A new name is a new version (an agent sees it); the manifest is unchanged.
      currentVersion: '1.0.1',
    });
    expect(put.body.data.manifest).toEqual(sampleManifest());

    expect(await libraryEntry(t, sub, workflowId)).toMatchObject({
      sourceType: 'subscribed',
      available: true,
      unavailableReason: null,
      workflowName: 'Renamed only',
    });
    expect((await deploymentWorkflows(t, sub, deploymentId)).map((w) => [w.workflowId, w.available])).toContainEqual([workflowId, true]);
    expect(await offeredResources(t, sub, deploymentId)).toContain(`workflow://${workflowId}/manifest`);
    expect((await t.call('GET', `/v1/workflows/${workflowId}`, { token: owner })).body.data.stats.subscribers).toBe(1);
  });

  test('an empty PUT changes nothing; null empties description, category and tags; null for the others is a 400 naming the field', async ({
    service: t,
    owner,
  }) => {
    const w = await createWorkflow(t, owner, { name: 'Nulls', visibility: 'public', description: 'd', category: 'c', tags: ['t'] });
    const path = `/v1/workflows/${w.workflowId}`;
    const empty = await t.call('PUT', path, { token: owner, body: {} });
    expect(empty.status).toBe(200);
    expect(empty.body.data).toMatchObject({
      name: 'Nulls',
      visibility: 'public',
      description: 'd',
      category: 'c',
      tags: ['t'],
      currentVersion: '1.0.0',
    });
    const cleared = await t.call('PUT', path, { token: owner, body: { description: null, category: null, tags: null } });
    expect(cleared.body.data).toMatchObject({ name: 'Nulls', visibility: 'public', description: '', category: '', tags: [] });
    for (const field of ['name', 'manifest', 'visibility', 'allowForks']) {
      const res = await t.call('PUT', path, { token: owner, body: { [field]: null } });
      expect(res.status, field).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { fields: [{ field, message: `${field} cannot be null; leave it out to keep the current value` }] },
      });
    }
    expect((await t.call('GET', path, { token: owner })).body.data.visibility).toBe('public');
  });

  test('the GraphQL mutation keeps what it does not mention too', async ({ service: t, owner }) => {
    const w = await createWorkflow(t, owner, { name: 'GraphQL keep', visibility: 'public', tags: ['g'] });
    const res = await t.graphql(
      'mutation($id: String!) { updateWorkflow(workflowId: $id, description: "only this") { name visibility description tags currentVersion } }',
      { id: w.workflowId },
      owner,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.updateWorkflow).toEqual({
      name: 'GraphQL keep',
      visibility: 'public',
      description: 'only this',
      tags: ['g'],
      currentVersion: '1.0.1',
    });
  });

  test("a private spell keeps the subscriber's entry and deployment, unavailable and unreadable, and public again restores them", async ({
    service: t,
    owner,
    sub,
  }) => {
    const { workflowId, mine, deploymentId } = await subscribedSetup(t, owner, sub, 'Private spell');
    const hide = await t.call('PUT', `/v1/workflows/${workflowId}`, { token: owner, body: { visibility: 'private' } });
    expect(hide.status).toBe(200);

    // Kept, marked unavailable with a reason.
    const entry = await libraryEntry(t, sub, workflowId);
    expect(entry).toMatchObject({ sourceType: 'subscribed', available: false, workflowVersion: '1.0.0' });
    expect(entry.unavailableReason).toMatch(/private/);
    const bundled = await deploymentWorkflows(t, sub, deploymentId);
    expect(bundled.map((w) => w.workflowId)).toEqual([mine, workflowId]);
    expect(bundled[1]).toMatchObject({ available: false, unavailableReason: expect.stringMatching(/private/) });
    // Not offered on the tool endpoint, not readable anywhere.
    expect(await offeredResources(t, sub, deploymentId)).toEqual([`workflow://${mine}/manifest`]);
    expect((await t.call('GET', `/v1/workflows/${workflowId}`, { token: sub })).status).toBe(404);
    const viaLibrary = await t.graphql('{ library { data { workflowId available workflow { manifest } } } }', {}, sub);
    expect(viaLibrary.body.data.library.data.find((e: any) => e.workflowId === workflowId)).toEqual({
      workflowId,
      available: false,
      workflow: null,
    });

    // Edits made while private do not reach the subscriber.
    const edited = sampleManifest({ intent: 'A private edit' });
    expect(
      (await t.call('PUT', `/v1/workflows/${workflowId}`, { token: owner, body: { manifest: edited } })).body.data.currentVersion,
    ).toBe('1.0.1');
    expect((await libraryEntry(t, sub, workflowId)).workflowVersion).toBe('1.0.0');

    // Public again: everything comes back, the auto-updating entry at the current version.
    expect((await t.call('PUT', `/v1/workflows/${workflowId}`, { token: owner, body: { visibility: 'public' } })).status).toBe(200);
    expect(await libraryEntry(t, sub, workflowId)).toMatchObject({ available: true, unavailableReason: null, workflowVersion: '1.0.1' });
    expect((await deploymentWorkflows(t, sub, deploymentId))[1]).toMatchObject({ workflowId, available: true, version: '1.0.1' });
    expect(await offeredResources(t, sub, deploymentId)).toEqual([`workflow://${mine}/manifest`, `workflow://${workflowId}/manifest`]);
    const back = await t.graphql('{ library { data { workflowId workflow { manifest } } } }', {}, sub);
    expect(back.body.data.library.data.find((e: any) => e.workflowId === workflowId).workflow.manifest).toEqual(edited);
    expect((await t.call('GET', `/v1/workflows/${workflowId}`, { token: owner })).body.data.stats.subscribers).toBe(1);
  });

  test("deleting the workflow still removes it from the subscriber's library and deployments", async ({ service: t, owner, sub }) => {
    const { workflowId, mine, deploymentId } = await subscribedSetup(t, owner, sub, 'Deleted');
    expect((await t.call('DELETE', `/v1/workflows/${workflowId}`, { token: owner })).body.data).toEqual({ workflowId, deleted: true });
    expect(await libraryEntry(t, sub, workflowId)).toBeUndefined();
    expect((await deploymentWorkflows(t, sub, deploymentId)).map((w) => w.workflowId)).toEqual([mine]);
  });

  test('a subscription racing with the owner making the workflow private never leaves a readable workflow', async ({
    service: t,
    owner,
  }) => {
    for (let round = 0; round < 8; round += 1) {
      const w = await createWorkflow(t, owner, { name: `Race ${round}`, visibility: 'public' });
      const racer = await t.token(`racer-${round}@example.com`);
      const [subscribed, hidden] = await Promise.all([
        t.call('POST', `/v1/library/${w.workflowId}`, { token: racer, body: {} }),
        t.call('PUT', `/v1/workflows/${w.workflowId}`, { token: owner, body: { visibility: 'private' } }),
      ]);
      expect(hidden.status).toBe(200);
      // Either the subscription came first (kept, now unavailable) or it saw the private workflow (404).
      expect([201, 404]).toContain(subscribed.status);
      const read = await t.graphql('{ library { data { workflowId available workflow { manifest } } } }', {}, racer);
      const entry = read.body.data.library.data.find((e: any) => e.workflowId === w.workflowId);
      if (subscribed.status === 201) expect(entry).toEqual({ workflowId: w.workflowId, available: false, workflow: null });
      else expect(entry).toBeUndefined();
      expect((await t.call('GET', `/v1/workflows/${w.workflowId}`, { token: racer })).status).toBe(404);
      const subscribers = (await t.call('GET', `/v1/workflows/${w.workflowId}`, { token: owner })).body.data.stats.subscribers;
      expect(subscribers).toBe(subscribed.status === 201 ? 1 : 0);
    }
  });
});
