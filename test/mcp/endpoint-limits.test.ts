import { describe, expect } from 'vitest';
import { seedWorkflow } from '../helpers/seed.js';
import { serviceTestWith } from '../helpers/service-test.js';

const serviceTest = serviceTestWith({ RATE_LIMIT_MODE: 'enforce' });

/**
 * Anonymous calls to a deployment's endpoint are rate-limited per deployment and client address at
 * the owner's plan rate, and the refusal is a JSON-RPC error like every other endpoint answer.
 */
describe('tool endpoint rate limits', () => {
  serviceTest('refuses anonymous calls over the free plan rate with 429 and a JSON-RPC error', async ({ service: t }) => {
    const token = await t.token('free-owner@example.com');
    const prisma = t.database.db.prisma;
    const user = await prisma.user.findFirstOrThrow({ where: { email: 'free-owner@example.com' } });
    // The free plan: no subscription row.
    await prisma.billingSubscription.deleteMany({ where: { userId: user.id } });
    const wf = await seedWorkflow(t, user.id);
    const res = await t.call('POST', '/v1/deployments', { token, body: { name: 'Open', workflowIds: [wf], allowAnonymous: true } });
    const deploymentId = res.body.data.deploymentId;
    const ping = (id: number) => t.call('POST', `/v1/mcp/${deploymentId}`, { body: { jsonrpc: '2.0', id, method: 'ping' } });
    const first = await ping(0);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBeTruthy();
    let refused;
    for (let i = 1; i <= 40 && !refused; i += 1) {
      const res = await ping(i);
      if (res.status !== 200) refused = res;
    }
    expect(refused?.status).toBe(429);
    expect(refused?.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused?.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32029, data: { code: 'RATE_LIMITED' } } });
  });
});
