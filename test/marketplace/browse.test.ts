import { describe, expect } from 'vitest';
import { bayesianRating } from '../../src/marketplace/service.js';
import { encodeCursor } from '../../src/pagination.js';
import type { TestApp } from '../helpers/app.js';
import { createWorkflow } from '../helpers/workflows.js';
import { readAllPages } from '../helpers/marketplace.js';
import { userIdOf } from '../helpers/seed.js';
import { serviceTest } from '../helpers/service-test.js';

/** The publisher of the workflows below (token and id), and another user who browses. */
const test = serviceTest.extend<{ owner: string; viewer: string; ownerId: string }>({
  owner: [async ({ service: t }, use) => use(await t.token('market-owner@example.com')), { scope: 'file' }],
  viewer: [async ({ service: t }, use) => use(await t.token('market-viewer@example.com')), { scope: 'file' }],
  ownerId: [async ({ service: t, owner }, use) => use(await userIdOf(t, owner)), { scope: 'file' }],
});

/** GET /v1/marketplace: sort orders, ties across pages, filters and bad input (issue 4.1). */
describe('marketplace browse', () => {
  const prisma = (t: TestApp) => t.database.db.prisma;
  const desc = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);

  async function publicIn(t: TestApp, owner: string, category: string, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i += 1)
      ids.push((await createWorkflow(t, owner, { name: `${category} ${i}`, category, visibility: 'public' })).workflowId);
    return ids;
  }

  test('lists public workflows of every user with the summary, the owner and the stats, never the e-mail', async ({
    service: t,
    owner,
    viewer,
    ownerId,
  }) => {
    const pub = await createWorkflow(t, owner, { name: 'Listed', category: 'shape', visibility: 'public', tags: ['a', 'b'] });
    await createWorkflow(t, owner, { name: 'Hidden', category: 'shape', visibility: 'private' });
    const res = await t.call('GET', '/v1/marketplace?category=shape', { token: viewer });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        workflowId: pub.workflowId,
        name: 'Listed',
        description: 'Plans, codes, tests and reviews',
        visibility: 'public',
        category: 'shape',
        tags: ['a', 'b'],
        currentVersion: '1.0.0',
        owner: { userId: ownerId, handle: `user-${ownerId.slice(4, 12)}` },
        stats: { forks: 0, subscribers: 0, rating: 0, ratingCount: 0 },
        publishedAt: expect.any(String),
        createdAt: pub.createdAt,
        updatedAt: pub.updatedAt,
        check: { status: 'passed', summary: 'checked: no findings', findings: [] },
      },
    ]);
    expect(res.body.pagination).toEqual({ nextCursor: null, hasMore: false, count: 1 });
    expect(res.text).not.toContain('market-owner@example.com');
    expect(res.text).not.toContain('@example.com');
  });

  test('shows a display name as the handle, but never one that looks like an e-mail address', async ({
    service: t,
    owner,
    viewer,
    ownerId,
  }) => {
    const [w] = await publicIn(t, owner, 'handles', 1);
    await prisma(t).user.update({ where: { id: ownerId }, data: { displayName: 'Ada Lovelace' } });
    expect((await t.call('GET', '/v1/marketplace?category=handles', { token: viewer })).body.data[0].owner).toEqual({
      userId: ownerId,
      handle: 'Ada Lovelace',
    });
    await prisma(t).user.update({ where: { id: ownerId }, data: { displayName: 'market-owner@example.com' } });
    const res = await t.call('GET', '/v1/marketplace?category=handles', { token: viewer });
    expect(res.body.data[0].owner.handle).toBe(`user-${ownerId.slice(4, 12)}`);
    expect(res.text).not.toContain('@');
    await prisma(t).user.update({ where: { id: ownerId }, data: { displayName: null } });
    expect(w).toBeTruthy();
  });

  test('filters by category ignoring case, and drops a workflow made private at once', async ({ service: t, owner, viewer }) => {
    const [a, b] = await publicIn(t, owner, 'Filtering', 2);
    const ids = await readAllPages(t, viewer, '/v1/marketplace?category=filtering');
    expect(ids.sort()).toEqual([a, b].sort());
    const w = (await t.call('GET', `/v1/workflows/${a}`, { token: owner })).body.data;
    await t.call('PUT', `/v1/workflows/${a}`, {
      token: owner,
      body: { name: w.name, manifest: w.manifest, category: w.category, visibility: 'private' },
    });
    expect(await readAllPages(t, viewer, '/v1/marketplace?category=FILTERING')).toEqual([b]);
  });

  test('sort=popular (subscribers + 2 × forks) pages through ties without gaps or repeats', async ({ service: t, owner, viewer }) => {
    const ids = await publicIn(t, owner, 'ties-popular', 7);
    const counts: [number, number][] = [
      [3, 0],
      [1, 1],
      [0, 0],
      [0, 0],
      [5, 0],
      [3, 0],
      [0, 0],
    ];
    for (const [i, id] of ids.entries())
      await prisma(t).workflow.update({ where: { id }, data: { subscribersCount: counts[i]![0], forksCount: counts[i]![1] } });
    const pop = new Map(ids.map((id, i) => [id, counts[i]![0] + 2 * counts[i]![1]]));
    const expected = [...ids].sort((a, b) => pop.get(b)! - pop.get(a)! || desc(a, b));
    expect(await readAllPages(t, viewer, '/v1/marketplace?category=ties-popular&sort=popular')).toEqual(expected);
    expect(await readAllPages(t, viewer, '/v1/marketplace?category=ties-popular', 3)).toEqual(expected);
  });

  test('sort=recent (time of publishing) pages through equal times', async ({ service: t, owner, viewer }) => {
    const ids = await publicIn(t, owner, 'ties-recent', 6);
    const times = [
      '2026-01-01T00:00:00.000Z',
      '2026-01-02T00:00:00.000Z',
      '2026-01-02T00:00:00.000Z',
      '2026-01-02T00:00:00.000Z',
      '2025-12-31T00:00:00.000Z',
      '2026-01-02T00:00:00.000Z',
    ];
    for (const [i, id] of ids.entries()) await prisma(t).workflow.update({ where: { id }, data: { publishedAt: new Date(times[i]!) } });
    const at = new Map(ids.map((id, i) => [id, times[i]!]));
    const expected = [...ids].sort((a, b) => desc(at.get(a)!, at.get(b)!) || desc(a, b));
    expect(await readAllPages(t, viewer, '/v1/marketplace?category=ties-recent&sort=recent')).toEqual(expected);
  });

  test('sort=rating ranks forty 4.8s above one 5 and pages through ties (Bayesian average, then count, then id)', async ({
    service: t,
    owner,
    viewer,
  }) => {
    const ids = await publicIn(t, owner, 'ties-rating', 8);
    // [ratingSum, ratingCount]: (35 + sum) / (10 + count)
    const ratings: [number, number][] = [
      [5, 1],
      [192, 40],
      [8, 2],
      [8, 2],
      [0, 0],
      [0, 0],
      [7, 2],
      [8, 2],
    ];
    for (const [i, id] of ids.entries())
      await prisma(t).workflow.update({ where: { id }, data: { ratingSum: ratings[i]![0], ratingCount: ratings[i]![1] } });
    expect(bayesianRating(5, 1)).toBeCloseTo(3.636, 3);
    expect(bayesianRating(192, 40)).toBeCloseTo(4.54, 3);
    const key = (i: number) => Math.floor(bayesianRating(ratings[i]![0], ratings[i]![1]) * 1_000_000 + 1e-6);
    const index = new Map(ids.map((id, i) => [id, i]));
    const expected = [...ids].sort((a, b) => {
      const [i, j] = [index.get(a)!, index.get(b)!];
      return key(j) - key(i) || ratings[j]![1] - ratings[i]![1] || desc(a, b);
    });
    const served = await readAllPages(t, viewer, '/v1/marketplace?category=ties-rating&sort=rating');
    expect(served).toEqual(expected);
    expect(served[0]).toBe(ids[1]); // forty 4.8s
    expect(served.indexOf(ids[0]!)).toBe(1); // one 5
    const first = (await t.call('GET', '/v1/marketplace?category=ties-rating&sort=rating&limit=1', { token: viewer })).body.data[0];
    expect(first.stats).toEqual({ forks: 0, subscribers: 0, rating: 4.8, ratingCount: 40 });
  });

  test('refuses bad input with 400 VALIDATION_ERROR naming the field', async ({ service: t, viewer }) => {
    const cases: [string, string][] = [
      ['/v1/marketplace?sort=best', 'sort'],
      ['/v1/marketplace?limit=0', 'limit'],
      ['/v1/marketplace?limit=500', 'limit'],
      ['/v1/marketplace?limit=-1', 'limit'],
      ['/v1/marketplace?limit=ten', 'limit'],
      ['/v1/marketplace?cursor=%%%garbled', 'cursor'],
      ['/v1/marketplace?cursor=bm90LWpzb24', 'cursor'],
      [`/v1/marketplace?category=${'x'.repeat(51)}`, 'category'],
    ];
    for (const [path, field] of cases) {
      const res = await t.call('GET', path, { token: viewer });
      expect(res.status, path).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(res.body.error.details), path).toContain(field);
    }
  });

  test('refuses a cursor from another sort order, from another list, or with forged values', async ({ service: t, owner, viewer }) => {
    await publicIn(t, owner, 'cursors', 3);
    const popular = (await t.call('GET', '/v1/marketplace?category=cursors&limit=1', { token: viewer })).body.pagination.nextCursor;
    const rating = (await t.call('GET', '/v1/marketplace?category=cursors&limit=1&sort=rating', { token: viewer })).body.pagination
      .nextCursor;
    expect(popular).toBeTruthy();
    expect(rating).toBeTruthy();
    const own = (await t.call('GET', '/v1/workflows?limit=1', { token: owner })).body.pagination.nextCursor;
    const forged = [
      `/v1/marketplace?sort=recent&cursor=${popular}`,
      `/v1/marketplace?sort=rating&cursor=${popular}`,
      `/v1/marketplace?cursor=${rating}`,
      `/v1/marketplace?cursor=${own}`,
      `/v1/marketplace?sort=recent&cursor=${encodeCursor('marketplace:recent', ['not a date', 'wf_x'])}`,
      `/v1/marketplace?cursor=${encodeCursor('marketplace:popular', ['1', 'wf_x'])}`,
      `/v1/marketplace?cursor=${encodeCursor('marketplace:popular', [1])}`,
    ];
    for (const path of forged) {
      const res = await t.call('GET', path, { token: viewer });
      expect(res.status, path).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    // A well-formed cursor with values of the user's choosing only positions the page.
    const crafted = await t.call('GET', `/v1/marketplace?cursor=${encodeCursor('marketplace:popular', [2_000_000_000, "' OR 1=1 --"])}`, {
      token: viewer,
    });
    expect(crafted.status).toBe(200);
  });

  test('needs a token', async ({ service: t }) => {
    expect((await t.call('GET', '/v1/marketplace')).status).toBe(401);
    expect((await t.call('GET', '/v1/marketplace/featured')).status).toBe(401);
    expect((await t.call('GET', '/v1/marketplace/search?q=x')).status).toBe(401);
  });
});
