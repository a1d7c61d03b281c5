import { describe, expect } from 'vitest';
import { serviceTest } from '../helpers/service-test.js';
import { createWorkflow } from '../helpers/workflows.js';

/** The free plan's workflow and subscription quotas on the workflow routes (spec 8). */
describe('free plan quotas on workflows, forks and subscriptions', () => {
  serviceTest('allows 5 workflows (forks count), then answers 402 with details and stores nothing', async ({ service: t }) => {
    const free = await t.token('free@example.com', { plan: 'free' });
    const source = await t.token('source@example.com');
    const original = await createWorkflow(t, source, { visibility: 'public' });
    for (let i = 0; i < 4; i += 1) await createWorkflow(t, free, { name: `W${i}` });
    const fork = await t.call('POST', `/v1/workflows/${original.workflowId}/fork`, { token: free, body: {} });
    expect(fork.status).toBe(201);
    const sixth = await t.call('POST', '/v1/workflows', { token: free, body: { name: 'one too many', manifest: original.manifest } });
    expect(sixth.status).toBe(402);
    expect(sixth.body.error.code).toBe('PLAN_LIMIT_EXCEEDED');
    expect(sixth.body.error.details).toMatchObject({ quota: 'workflows', limit: 5, used: 5 });
    const other = await createWorkflow(t, source, { visibility: 'public' });
    const fork2 = await t.call('POST', `/v1/workflows/${other.workflowId}/fork`, { token: free, body: {} });
    expect(fork2.status).toBe(402);
    expect((await t.call('GET', '/v1/users/me', { token: free })).body.data.workflowCount).toBe(5);
    expect((await t.call('GET', `/v1/workflows/${other.workflowId}`, { token: source })).body.data.stats.forks).toBe(0);
  });

  serviceTest('allows 20 subscriptions, then answers 402', async ({ service: t }) => {
    const free = await t.token('subscriber@example.com', { plan: 'free' });
    const source = await t.token('publisher@example.com');
    const ids: string[] = [];
    for (let i = 0; i < 21; i += 1) ids.push((await createWorkflow(t, source, { name: `Pub ${i}`, visibility: 'public' })).workflowId);
    for (const id of ids.slice(0, 20)) expect((await t.call('POST', `/v1/library/${id}`, { token: free, body: {} })).status).toBe(201);
    const last = await t.call('POST', `/v1/library/${ids[20]}`, { token: free, body: {} });
    expect(last.status).toBe(402);
    expect(last.body.error.details).toMatchObject({ quota: 'subscriptions', limit: 20, used: 20 });
  });
});
