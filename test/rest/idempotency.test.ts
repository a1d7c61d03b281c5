import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { serviceTestWith } from '../helpers/service-test.js';
import { createWorkflow, sampleManifest } from '../helpers/workflows.js';

/**
 * Idempotent creates (docs/concurrency.md): a POST that creates a resource, sent again with the same
 * Idempotency-Key by the same user within 24 hours, gets the first answer and creates nothing.
 */

const clockDir = mkdtempSync(join(tmpdir(), 'idempotency-clock-'));
const clockFile = join(clockDir, 'offset');
writeFileSync(clockFile, '0');
afterAll(() => rmSync(clockDir, { recursive: true, force: true }));
const serviceTest = serviceTestWith({ TEST_CLOCK_OFFSET_FILE: clockFile });

const body = (name: string) => ({ name, manifest: sampleManifest() });
const keyed = (token: string, key: string, payload: unknown) => ({ token, headers: { 'idempotency-key': key }, body: payload });

describe('Idempotency-Key on creates', () => {
  serviceTest('a repeat gets the first answer, status and body, and creates nothing', async ({ service: t, alice }) => {
    const first = await t.call('POST', '/v1/workflows', keyed(alice, 'wf-repeat-1', body('Once')));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await t.call('POST', '/v1/workflows', keyed(alice, 'wf-repeat-1', body('Once')));
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    const list = await t.call('GET', '/v1/workflows', { token: alice });
    expect(list.body.data.filter((w: { name: string }) => w.name === 'Once')).toHaveLength(1);
    // The same body in another key order is the same request.
    const reordered = await t.call('POST', '/v1/workflows', keyed(alice, 'wf-repeat-1', { manifest: sampleManifest(), name: 'Once' }));
    expect(reordered.status).toBe(201);
    expect(reordered.body.data.workflowId).toBe(first.body.data.workflowId);
  });

  serviceTest('the same key with another body, or on another route, is refused and creates nothing', async ({ service: t, alice }) => {
    await t.call('POST', '/v1/workflows', keyed(alice, 'wf-reuse', body('Original')));
    const other = await t.call('POST', '/v1/workflows', keyed(alice, 'wf-reuse', body('Different')));
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('VALIDATION_ERROR');
    expect(other.body.error.details).toMatchObject({ reason: 'idempotency_key_reused', fields: [{ field: 'Idempotency-Key' }] });
    const w = await createWorkflow(t, alice);
    const dep = await t.call('POST', '/v1/deployments', keyed(alice, 'wf-reuse', { name: 'D', workflowIds: [w.workflowId] }));
    expect(dep.status).toBe(400);
    expect(dep.body.error.details.reason).toBe('idempotency_key_reused');
    const names = (await t.call('GET', '/v1/workflows', { token: alice })).body.data.map((x: { name: string }) => x.name);
    expect(names).not.toContain('Different');
    expect((await t.call('GET', '/v1/deployments', { token: alice })).body.data).toHaveLength(0);
  });

  serviceTest('keys are per user: the same key by another user is a request of its own', async ({ service: t, alice, bob }) => {
    const mine = await t.call('POST', '/v1/workflows', keyed(alice, 'shared-key', body('Shared')));
    const theirs = await t.call('POST', '/v1/workflows', keyed(bob, 'shared-key', body('Shared')));
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.data.workflowId).not.toBe(mine.body.data.workflowId);
    expect((await t.call('GET', `/v1/workflows/${mine.body.data.workflowId}`, { token: bob })).status).toBe(404);
  });

  serviceTest('a refused create frees its key: the corrected request runs', async ({ service: t, alice }) => {
    const refused = await t.call('POST', '/v1/workflows', keyed(alice, 'wf-fix', { name: ' ', manifest: sampleManifest() }));
    expect(refused.status).toBe(400);
    const fixed = await t.call('POST', '/v1/workflows', keyed(alice, 'wf-fix', body('Fixed')));
    expect(fixed.status).toBe(201);
    expect(fixed.body.data.name).toBe('Fixed');
  });

  serviceTest('deployments, forks and API keys: a repeat creates no second one', async ({ service: t, alice, bob }) => {
    const w = await createWorkflow(t, alice, { visibility: 'public' });
    const deps = await Promise.all(
      [1, 2].map(() => t.call('POST', '/v1/deployments', keyed(alice, 'dep-1', { name: 'Keyed', workflowIds: [w.workflowId] }))),
    );
    // Sent together: the second either waits for nothing (409, still running) or gets the first answer.
    const created = deps.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of deps)
      if (r.status !== 201) expect(r.body.error).toMatchObject({ code: 'CONFLICT', details: { reason: 'idempotency_key_in_flight' } });
    expect(new Set(created.map((r) => r.body.data.deploymentId)).size).toBe(1);
    const repeat = await t.call('POST', '/v1/deployments', keyed(alice, 'dep-1', { name: 'Keyed', workflowIds: [w.workflowId] }));
    expect(repeat.body.data.deploymentId).toBe(created[0]!.body.data.deploymentId);
    expect((await t.call('GET', '/v1/deployments', { token: alice })).body.data).toHaveLength(1);

    const fork = await t.call('POST', `/v1/workflows/${w.workflowId}/fork`, keyed(bob, 'fork-1', {}));
    expect(fork.status).toBe(201);
    const forkAgain = await t.call('POST', `/v1/workflows/${w.workflowId}/fork`, keyed(bob, 'fork-1', {}));
    // Without the key, a second fork is a 409; with it, the first answer.
    expect(forkAgain.status).toBe(201);
    expect(forkAgain.body.data.workflowId).toBe(fork.body.data.workflowId);

    const key = await t.call('POST', '/v1/api-keys', keyed(alice, 'apikey-1', { name: 'CI', scope: 'api' }));
    expect(key.status).toBe(201);
    const keyAgain = await t.call('POST', '/v1/api-keys', keyed(alice, 'apikey-1', { name: 'CI', scope: 'api' }));
    expect(keyAgain.text).toBe(key.text);
    expect((await t.call('GET', '/v1/api-keys', { token: alice })).body.data).toHaveLength(1);
  });

  serviceTest('an unusable key is 400; the header is ignored where nothing is created', async ({ service: t, alice }) => {
    for (const bad of ['x'.repeat(256), 'with space']) {
      const res = await t.call('POST', '/v1/workflows', keyed(alice, bad, body('Bad key')));
      expect(res.status).toBe(400);
      expect(res.body.error.details.fields).toEqual([{ field: 'Idempotency-Key', message: expect.stringContaining('Idempotency-Key') }]);
    }
    const w = await createWorkflow(t, alice);
    const put1 = await t.call('PUT', `/v1/workflows/${w.workflowId}`, keyed(alice, 'put-key', { name: 'A' }));
    const put2 = await t.call('PUT', `/v1/workflows/${w.workflowId}`, keyed(alice, 'put-key', { name: 'B' }));
    expect([put1.status, put2.status]).toEqual([200, 200]);
    expect(put2.body.data.name).toBe('B');
  });

  serviceTest('after 24 hours a key is forgotten and may name a new request', async ({ service: t, alice }) => {
    const first = await t.call('POST', '/v1/workflows', keyed(alice, 'day-old', body('Yesterday')));
    expect(first.status).toBe(201);
    writeFileSync(clockFile, String(24 * 60 * 60 * 1000 + 60_000));
    try {
      const later = await t.call('POST', '/v1/workflows', keyed(alice, 'day-old', body('Today')));
      expect(later.status).toBe(201);
      expect(later.body.data.name).toBe('Today');
      expect(later.headers.get('idempotent-replayed')).toBeNull();
    } finally {
      writeFileSync(clockFile, '0');
    }
  });
});
