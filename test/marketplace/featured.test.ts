import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createWorkflow } from '../helpers/workflows.js';
import { subscribeAndReview, tokens } from '../helpers/marketplace.js';
import { serviceTest } from '../helpers/service-test.js';

/** The workflows' ids by name, rated, reviewed and subscribed to as the tests below expect. */
const test = serviceTest.extend<{ ids: Record<string, string> }>({
  ids: [
    async ({ service: t }, use) => {
      const ids: Record<string, string> = {};
      const [a, b, c, d] = await tokens(t, 'featured-owner', 4);
      const reviewers = await tokens(t, 'featured-reviewer', 4);
      const fans = await tokens(t, 'featured-fan', 6);
      const make = async (token: string, name: string) =>
        (ids[name] = (await createWorkflow(t, token, { name, visibility: 'public' })).workflowId);
      await subscribeAndReview(t, reviewers, await make(a!, 'A1'), [5]);
      await subscribeAndReview(t, reviewers.slice(0, 3), await make(a!, 'A2'), [5]);
      await subscribeAndReview(t, reviewers.slice(0, 3), await make(b!, 'B1'), [4]);
      await subscribeAndReview(t, reviewers.slice(0, 3), await make(c!, 'C1'), [3]);
      await subscribeAndReview(t, reviewers.slice(0, 2), await make(c!, 'C2'), [5]);
      await subscribeAndReview(t, reviewers.slice(0, 3), await make(d!, 'D1'), [4]);
      for (const fan of fans) expect((await t.call('POST', `/v1/library/${ids.D1}`, { token: fan, body: {} })).status).toBe(201);
      await use(ids);
    },
    // Every test reads the marketplace these make, the first one included.
    { scope: 'file', auto: true },
  ],
});

/**
 * GET /v1/marketplace/featured (issue 4.3): at least 3 ratings with a mean of 4 or more, scored by
 * the Bayesian rating plus 0.25 × ln(1 + subscriptions of the last 7 days), one per owner.
 */
describe('featured workflows', () => {
  const featured = async (t: TestApp) => {
    const res = await t.call('GET', '/v1/marketplace/featured', { token: await t.token('featured-viewer@example.com') });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('@example.com');
    return res;
  };
  const names = (res: { body: any }) => res.body.data.map((w: any) => w.name);

  test('picks well-rated workflows, growth first, one per owner, and is deterministic', async ({ service: t }) => {
    const first = await featured(t);
    // A1: 55/14 + 0.25·ln 5 ≈ 4.33; D1: 47/13 + 0.25·ln 10 ≈ 4.19; B1: 47/13 + 0.25·ln 4 ≈ 3.96.
    // A2 loses to A1 (same owner); C1 averages 3; C2 has only 2 ratings.
    expect(names(first)).toEqual(['A1', 'D1', 'B1']);
    expect(first.body.pagination).toEqual({ nextCursor: null, hasMore: false, count: 3 });
    expect(first.body.data[0]).toMatchObject({
      stats: { rating: 5, ratingCount: 4, subscribers: 4 },
      owner: { handle: expect.stringMatching(/^user-/) },
    });
    for (let i = 0; i < 3; i += 1) expect((await featured(t)).body).toEqual(first.body);
  });

  test('counts only subscriptions of the last 7 days as growth', async ({ service: t, ids }) => {
    const prisma = t.database.db.prisma;
    const old = new Date(Date.now() - 30 * 86_400_000);
    await prisma.libraryEntry.updateMany({ where: { workflowId: ids.D1, sourceType: 'subscribed' }, data: { addedAt: old } });
    await prisma.libraryEntry.updateMany({ where: { workflowId: ids.B1, sourceType: 'subscribed' }, data: { addedAt: old } });
    // D1 and B1 now tie (same ratings, no growth): more ratings first, then the higher id.
    const tied = [ids.D1!, ids.B1!].sort().reverse();
    expect((await featured(t)).body.data.map((w: any) => w.workflowId)).toEqual([ids.A1, ...tied]);
  });

  test('drops a workflow made private', async ({ service: t, ids }) => {
    await t.database.db.prisma.workflow.update({ where: { id: ids.A1 }, data: { visibility: 'private' } });
    expect(names(await featured(t))).toEqual(['A2', ...names(await featured(t)).slice(1)]);
    expect(names(await featured(t))).not.toContain('A1');
  });
});
