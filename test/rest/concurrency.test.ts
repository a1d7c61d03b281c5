import { describe, expect } from 'vitest';
import { serviceTest } from '../helpers/service-test.js';
import { createWorkflow, sampleManifest } from '../helpers/workflows.js';

/**
 * Writes that cannot silently overwrite each other (docs/concurrency.md): a GET's ETag, a PUT's
 * If-Match refused with 412 when someone wrote in between, and a write's answer that describes
 * that write and no other.
 */

const withStep = (id: string) => sampleManifest({ steps: [...sampleManifest().steps, { id, name: `Step ${id}`, action: 'code_agent' }] });

describe('workflows: ETag and If-Match', () => {
  serviceTest('GET, POST and PUT carry an ETag that every write changes, a visibility change included', async ({ service: t, alice }) => {
    const created = await t.call('POST', '/v1/workflows', { token: alice, body: { name: 'Tagged', manifest: sampleManifest() } });
    expect(created.status).toBe(201);
    const id = created.body.data.workflowId;
    const first = await t.call('GET', `/v1/workflows/${id}`, { token: alice });
    expect(first.headers.get('etag')).toMatch(/^"\d+"$/);
    expect(first.headers.get('etag')).toBe(created.headers.get('etag'));
    // The revision stays out of the body: the answer's fields are the specification's.
    expect(first.body.data).not.toHaveProperty('revision');
    expect(first.body.data).not.toHaveProperty('etagRevision');
    // A change that keeps the version label still changes the ETag.
    const made = await t.call('PUT', `/v1/workflows/${id}`, { token: alice, body: { visibility: 'public' } });
    expect(made.status).toBe(200);
    expect(made.body.data.currentVersion).toBe(first.body.data.currentVersion);
    expect(made.headers.get('etag')).not.toBe(first.headers.get('etag'));
    const again = await t.call('GET', `/v1/workflows/${id}`, { token: alice });
    expect(again.headers.get('etag')).toBe(made.headers.get('etag'));
  });

  serviceTest('a stale If-Match is 412 PRECONDITION_FAILED and changes nothing; the current one saves', async ({ service: t, alice }) => {
    const w = await createWorkflow(t, alice);
    const read = await t.call('GET', `/v1/workflows/${w.workflowId}`, { token: alice });
    const etag = read.headers.get('etag')!;
    const moved = await t.call('PUT', `/v1/workflows/${w.workflowId}`, { token: alice, body: { description: 'someone else' } });
    expect(moved.status).toBe(200);

    const stale = await t.call('PUT', `/v1/workflows/${w.workflowId}`, {
      token: alice,
      headers: { 'if-match': etag },
      body: { name: 'Mine', manifest: withStep('mine') },
    });
    expect(stale.status).toBe(412);
    expect(stale.body.success).toBe(false);
    expect(stale.body.error.code).toBe('PRECONDITION_FAILED');
    expect(stale.body.error.message).toContain('has changed since you read it');
    const after = await t.call('GET', `/v1/workflows/${w.workflowId}`, { token: alice });
    // The other save (a description is part of a version, so it made 1.0.1) stands; the stale one made nothing.
    expect(after.body.data).toMatchObject({ name: w.name, description: 'someone else', currentVersion: '1.0.1' });
    expect(after.body.data.manifest.steps.map((s: { id: string }) => s.id)).not.toContain('mine');
    const versions = await t.call('GET', `/v1/workflows/${w.workflowId}/versions`, { token: alice });
    expect(versions.body.data).toHaveLength(2);

    const current = await t.call('PUT', `/v1/workflows/${w.workflowId}`, {
      token: alice,
      headers: { 'if-match': after.headers.get('etag')! },
      body: { name: 'Mine', manifest: withStep('mine') },
    });
    expect(current.status).toBe(200);
    expect(current.body.data.name).toBe('Mine');
    expect(current.body.data.currentVersion).not.toBe('1.0.1');
  });

  serviceTest('two clients read the same version: the first save lands, the second is refused', async ({ service: t, alice }) => {
    const w = await createWorkflow(t, alice);
    const [one, two] = await Promise.all([
      t.call('GET', `/v1/workflows/${w.workflowId}`, { token: alice }),
      t.call('GET', `/v1/workflows/${w.workflowId}`, { token: alice }),
    ]);
    expect(one.headers.get('etag')).toBe(two.headers.get('etag'));
    const first = await t.call('PUT', `/v1/workflows/${w.workflowId}`, {
      token: alice,
      headers: { 'if-match': one.headers.get('etag')! },
      body: { manifest: withStep('first') },
    });
    expect(first.status).toBe(200);
    const second = await t.call('PUT', `/v1/workflows/${w.workflowId}`, {
      token: alice,
      headers: { 'if-match': two.headers.get('etag')! },
      body: { manifest: withStep('second') },
    });
    expect(second.status).toBe(412);
    // The first client's new step is still there.
    const now = await t.call('GET', `/v1/workflows/${w.workflowId}`, { token: alice });
    const steps = now.body.data.manifest.steps.map((s: { id: string }) => s.id);
    expect(steps).toContain('first');
    expect(steps).not.toContain('second');
  });

  serviceTest('ten clients save at once over the same ETag: exactly one save lands', async ({ service: t, alice }) => {
    const w = await createWorkflow(t, alice);
    const etag = (await t.call('GET', `/v1/workflows/${w.workflowId}`, { token: alice })).headers.get('etag')!;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        t.call('PUT', `/v1/workflows/${w.workflowId}`, {
          token: alice,
          headers: { 'if-match': etag },
          body: { manifest: withStep(`s${i}`) },
        }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(9).fill(412)]);
    const winner = answers.findIndex((a) => a.status === 200);
    const steps = (await t.call('GET', `/v1/workflows/${w.workflowId}`, { token: alice })).body.data.manifest.steps.map(
      (s: { id: string }) => s.id,
    );
    expect(steps.filter((id: string) => /^s\d$/.test(id))).toEqual([`s${winner}`]);
  });

  serviceTest('If-Match: * and no If-Match write as before; a weak or unknown tag never matches', async ({ service: t, alice }) => {
    const w = await createWorkflow(t, alice);
    const star = await t.call('PUT', `/v1/workflows/${w.workflowId}`, {
      token: alice,
      headers: { 'if-match': '*' },
      body: { name: 'Star' },
    });
    expect(star.status).toBe(200);
    const none = await t.call('PUT', `/v1/workflows/${w.workflowId}`, { token: alice, body: { name: 'None' } });
    expect(none.status).toBe(200);
    const etag = none.headers.get('etag')!;
    for (const tag of [`W/${etag}`, '"0"', '"abc"', '"99999999999"']) {
      const res = await t.call('PUT', `/v1/workflows/${w.workflowId}`, { token: alice, headers: { 'if-match': tag }, body: { name: 'X' } });
      expect(res.status, tag).toBe(412);
      expect(res.body.error.code, tag).toBe('PRECONDITION_FAILED');
    }
    for (const bad of ['3', `${etag}, "1"`, 'garbage"']) {
      const res = await t.call('PUT', `/v1/workflows/${w.workflowId}`, { token: alice, headers: { 'if-match': bad }, body: { name: 'X' } });
      expect(res.status, bad).toBe(400);
      expect(res.body.error.details.fields, bad).toEqual([{ field: 'If-Match', message: expect.stringContaining('If-Match') }]);
    }
    expect((await t.call('GET', `/v1/workflows/${w.workflowId}`, { token: alice })).body.data.name).toBe('None');
  });

  serviceTest('the revision is not a body field, and If-Match is checked after who may write', async ({ service: t, alice, bob }) => {
    const w = await createWorkflow(t, alice, { visibility: 'public' });
    const asBody = await t.call('PUT', `/v1/workflows/${w.workflowId}`, { token: alice, body: { expectedRevision: 1 } });
    expect(asBody.status).toBe(400);
    expect(asBody.body.error.details.fields[0].field).toBe('expectedRevision');
    const etag = (await t.call('GET', `/v1/workflows/${w.workflowId}`, { token: alice })).headers.get('etag')!;
    const other = await t.call('PUT', `/v1/workflows/${w.workflowId}`, { token: bob, headers: { 'if-match': etag }, body: { name: 'B' } });
    expect(other.status).toBe(403);
    const missing = await t.call('PUT', '/v1/workflows/wf_missing', { token: alice, headers: { 'if-match': '"1"' }, body: { name: 'B' } });
    expect(missing.status).toBe(404);
  });

  serviceTest('concurrent PUTs: each answer describes its own write', async ({ service: t, alice }) => {
    const w = await createWorkflow(t, alice);
    const names = Array.from({ length: 20 }, (_, i) => `Writer ${i}`);
    const answers = await Promise.all(
      names.map((name) => t.call('PUT', `/v1/workflows/${w.workflowId}`, { token: alice, body: { name, description: `by ${name}` } })),
    );
    const etags = new Set<string>();
    answers.forEach((res, i) => {
      expect(res.status).toBe(200);
      expect(res.body.data.name).toBe(names[i]);
      expect(res.body.data.description).toBe(`by ${names[i]}`);
      etags.add(res.headers.get('etag')!);
    });
    // Twenty writes, twenty revisions.
    expect(etags.size).toBe(20);
  });
});

describe('GraphQL: expectedRevision on the update mutations', () => {
  serviceTest('updateWorkflow with a stale expectedRevision is PRECONDITION_FAILED', async ({ service: t, alice }) => {
    const w = await createWorkflow(t, alice);
    const read = await t.graphql('query ($id: String!) { workflow(workflowId: $id) { revision } }', { id: w.workflowId }, alice);
    const revision = read.body.data.workflow.revision as number;
    const update =
      'mutation ($id: String!, $name: String, $rev: Int) { updateWorkflow(workflowId: $id, name: $name, expectedRevision: $rev) { name revision } }';
    const ok = await t.graphql(update, { id: w.workflowId, name: 'First', rev: revision }, alice);
    expect(ok.body.data.updateWorkflow).toEqual({ name: 'First', revision: revision + 1 });
    const stale = await t.graphql(update, { id: w.workflowId, name: 'Second', rev: revision }, alice);
    expect(stale.body.errors[0].extensions.code).toBe('PRECONDITION_FAILED');
    expect(stale.body.errors[0].extensions.details).toMatchObject({ expectedRevision: revision, revision: revision + 1 });
    const unconditional = await t.graphql(update, { id: w.workflowId, name: 'Third' }, alice);
    expect(unconditional.body.data.updateWorkflow.name).toBe('Third');
  });

  serviceTest('updateDeployment with a stale expectedRevision is PRECONDITION_FAILED', async ({ service: t, alice }) => {
    const w = await createWorkflow(t, alice);
    const dep = await t.call('POST', '/v1/deployments', { token: alice, body: { name: 'G', workflowIds: [w.workflowId] } });
    const id = dep.body.data.deploymentId;
    const update =
      'mutation ($id: String!, $name: String, $rev: Int) { updateDeployment(deploymentId: $id, name: $name, expectedRevision: $rev) { name revision } }';
    const ok = await t.graphql(update, { id, name: 'G2', rev: 1 }, alice);
    expect(ok.body.data.updateDeployment).toEqual({ name: 'G2', revision: 2 });
    const stale = await t.graphql(update, { id, name: 'G3', rev: 1 }, alice);
    expect(stale.body.errors[0].extensions.code).toBe('PRECONDITION_FAILED');
  });
});

describe('deployments: ETag and If-Match', () => {
  serviceTest('a stale If-Match is 412 and changes nothing; activation and adapters move the ETag', async ({ service: t, alice }) => {
    const w = await createWorkflow(t, alice);
    const dep = await t.call('POST', '/v1/deployments', { token: alice, body: { name: 'Endpoint', workflowIds: [w.workflowId] } });
    expect(dep.status).toBe(201);
    const id = dep.body.data.deploymentId;
    const read = await t.call('GET', `/v1/deployments/${id}`, { token: alice });
    const etag = read.headers.get('etag')!;
    expect(etag).toBe(dep.headers.get('etag'));
    expect(read.body.data).not.toHaveProperty('revision');

    const off = await t.call('POST', `/v1/deployments/${id}/deactivate`, { token: alice });
    expect(off.headers.get('etag')).not.toBe(etag);
    const stale = await t.call('PUT', `/v1/deployments/${id}`, { token: alice, headers: { 'if-match': etag }, body: { name: 'Renamed' } });
    expect(stale.status).toBe(412);
    expect(stale.body.error.code).toBe('PRECONDITION_FAILED');
    expect((await t.call('GET', `/v1/deployments/${id}`, { token: alice })).body.data.name).toBe('Endpoint');

    const adapters = await t.call('POST', `/v1/deployments/${id}/adapters`, {
      token: alice,
      body: { adapter: 'adapter_two', enabled: false },
    });
    expect(adapters.status).toBe(200);
    const now = await t.call('GET', `/v1/deployments/${id}`, { token: alice });
    expect(now.headers.get('etag')).not.toBe(off.headers.get('etag'));
    const fresh = await t.call('PUT', `/v1/deployments/${id}`, {
      token: alice,
      headers: { 'if-match': now.headers.get('etag')! },
      body: { name: 'Renamed' },
    });
    expect(fresh.status).toBe(200);
    expect(fresh.body.data).toMatchObject({ name: 'Renamed', status: 'inactive' });
    expect(fresh.headers.get('etag')).not.toBe(now.headers.get('etag'));
  });

  serviceTest('concurrent PUTs: each answer describes its own write', async ({ service: t, alice }) => {
    const w = await createWorkflow(t, alice);
    const dep = await t.call('POST', '/v1/deployments', { token: alice, body: { name: 'Busy', workflowIds: [w.workflowId] } });
    const id = dep.body.data.deploymentId;
    const names = Array.from({ length: 20 }, (_, i) => `Deployment ${i}`);
    const answers = await Promise.all(names.map((name) => t.call('PUT', `/v1/deployments/${id}`, { token: alice, body: { name } })));
    answers.forEach((res, i) => {
      expect(res.status).toBe(200);
      expect(res.body.data.name).toBe(names[i]);
    });
    expect(new Set(answers.map((res) => res.headers.get('etag'))).size).toBe(20);
  });
});
