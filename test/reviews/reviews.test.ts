import { describe, expect } from 'vitest';
import type { CallResult, TestApp } from '../helpers/app.js';
import { testDatabaseKind } from '../helpers/database.js';
import { createWorkflow } from '../helpers/workflows.js';
import { tokens } from '../helpers/marketplace.js';
import { serviceTest } from '../helpers/service-test.js';

interface World {
  owner: string;
  subscriber: string;
  forker: string;
  stranger: string;
  subscriberId: string;
  /** The owner's public workflow, which the subscriber subscribed to and the forker forked. */
  workflowId: string;
}

const TEXT = 'Saved me an hour on every pull request.';

/** The users of the file and the workflow they review. */
const test = serviceTest.extend<{ world: World }>({
  world: [
    async ({ service: t }, use) => {
      const owner = await t.token('rev-owner@example.com');
      const subscriber = await t.token('rev-subscriber@example.com');
      const forker = await t.token('rev-forker@example.com');
      const stranger = await t.token('rev-stranger@example.com');
      const subscriberId = (await t.call('GET', '/v1/users/me', { token: subscriber })).body.data.userId;
      const workflowId = (await createWorkflow(t, owner, { name: 'Reviewed', visibility: 'public' })).workflowId;
      expect((await t.call('POST', `/v1/library/${workflowId}`, { token: subscriber, body: {} })).status).toBe(201);
      expect((await t.call('POST', `/v1/workflows/${workflowId}/fork`, { token: forker, body: {} })).status).toBe(201);
      await use({ owner, subscriber, forker, stranger, subscriberId, workflowId });
    },
    { scope: 'file' },
  ],
});

/** Reviews and ratings (spec 2.9, 8; issue 4.4). */
describe('reviews', () => {
  const post = (t: TestApp, token: string, id: string, body: unknown) => t.call('POST', `/v1/workflows/${id}/reviews`, { token, body });
  const statsOf = async (t: TestApp, owner: string, id: string) =>
    (await t.call('GET', `/v1/workflows/${id}`, { token: owner })).body.data.stats;
  /** The stored counters against the reviews themselves: the exactness check. */
  async function storedVersusActual(t: TestApp, id: string) {
    const prisma = t.database.db.prisma;
    const w = await prisma.workflow.findUniqueOrThrow({ where: { id }, select: { ratingSum: true, ratingCount: true } });
    const agg = await prisma.review.aggregate({ where: { workflowId: id }, _sum: { rating: true }, _count: true });
    return { stored: [w.ratingSum, w.ratingCount], actual: [agg._sum.rating ?? 0, agg._count] };
  }

  test('lets a subscriber review, with the documented record shape, and counts the rating', async ({
    service: t,
    world: { owner, subscriber, subscriberId, workflowId },
  }) => {
    const res = await post(t, subscriber, workflowId, { rating: 4, text: `  ${TEXT}  ` });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toEqual({
      reviewId: expect.stringMatching(/^rev_/),
      workflowId,
      author: { userId: subscriberId, handle: `user-${subscriberId.slice(4, 12)}` },
      rating: 4,
      text: TEXT,
      createdAt: expect.any(String),
      updatedAt: res.body.data.createdAt,
    });
    expect(res.text).not.toContain('@example.com');
    expect(await statsOf(t, owner, workflowId)).toMatchObject({ rating: 4, ratingCount: 1 });
  });

  test('lets a user who forked it review; the mean is shown to one decimal', async ({
    service: t,
    world: { owner, forker, workflowId },
  }) => {
    expect((await post(t, forker, workflowId, { rating: 5, text: TEXT })).status).toBe(201);
    expect(await statsOf(t, owner, workflowId)).toMatchObject({ rating: 4.5, ratingCount: 2 });
  });

  test('refuses a second review by the same user with 409', async ({ service: t, world: { owner, subscriber, workflowId } }) => {
    const res = await post(t, subscriber, workflowId, { rating: 1, text: TEXT });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('CONFLICT');
    expect(res.body.error.details.reviewId).toMatch(/^rev_/);
    expect(await statsOf(t, owner, workflowId)).toMatchObject({ ratingCount: 2 });
  });

  test('refuses a user who has not used it and the owner with 403', async ({ service: t, world: { owner, stranger, workflowId } }) => {
    const res = await post(t, stranger, workflowId, { rating: 5, text: TEXT });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/forked this workflow or subscribed/);
    const own = await post(t, owner, workflowId, { rating: 5, text: TEXT });
    expect(own.status).toBe(403);
    expect(own.body.error.message).toMatch(/your own workflow/);
  });

  test('refuses a private or unknown workflow with 404', async ({ service: t, world: { owner, stranger } }) => {
    const priv = await createWorkflow(t, owner, { name: 'Private one' });
    expect((await post(t, stranger, priv.workflowId, { rating: 5, text: TEXT })).status).toBe(404);
    expect((await post(t, stranger, 'wf_doesnotexist', { rating: 5, text: TEXT })).status).toBe(404);
    expect((await t.call('GET', `/v1/workflows/${priv.workflowId}/reviews`, { token: stranger })).status).toBe(404);
    expect((await t.call('GET', '/v1/workflows/wf_doesnotexist/reviews', { token: stranger })).status).toBe(404);
  });

  test('refuses bad ratings and texts with 400 naming the field', async ({ service: t, world: { owner, stranger } }) => {
    const cases: [unknown, string][] = [
      [{ rating: 0, text: TEXT }, 'rating'],
      [{ rating: 6, text: TEXT }, 'rating'],
      [{ rating: 4.5, text: TEXT }, 'rating'],
      [{ rating: '5', text: TEXT }, 'rating'],
      [{ rating: -1, text: TEXT }, 'rating'],
      [{ rating: null, text: TEXT }, 'rating'],
      [{ text: TEXT }, 'rating'],
      [{ rating: 5, text: '123456789' }, 'text'],
      [{ rating: 5, text: '   12345 789   ' }, 'text'], // 9 once trimmed
      [{ rating: 5, text: 'x'.repeat(2001) }, 'text'],
      [{ rating: 5, text: 12345678901 }, 'text'],
      [{ rating: 5 }, 'text'],
      [{ rating: 5, text: TEXT, stars: 5 }, 'stars'],
    ];
    const fresh = (await createWorkflow(t, owner, { visibility: 'public' })).workflowId;
    await t.call('POST', `/v1/library/${fresh}`, { token: stranger, body: {} });
    for (const [body, field] of cases) {
      const res = await post(t, stranger, fresh, body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.fields.map((f: any) => f.field)).toContain(field);
    }
    expect((await post(t, stranger, fresh, { rating: 1, text: '1234567890' })).status).toBe(201);
    expect(await statsOf(t, owner, fresh)).toMatchObject({ rating: 1, ratingCount: 1 });
  });

  test('lists reviews newest first, paginated, for anyone who may read the workflow', async ({
    service: t,
    world: { owner, stranger, workflowId },
  }) => {
    const w = (await createWorkflow(t, owner, { visibility: 'public' })).workflowId;
    const users = await tokens(t, 'lister', 5);
    for (const [i, u] of users.entries()) {
      await t.call('POST', `/v1/library/${w}`, { token: u, body: {} });
      expect((await post(t, u, w, { rating: (i % 5) + 1, text: `Review number ${i} of five.` })).status).toBe(201);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: CallResult = await t.call('GET', `/v1/workflows/${w}/reviews?limit=2${cursor ? `&cursor=${cursor}` : ''}`, {
        token: stranger,
      });
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('@example.com');
      seen.push(...res.body.data.map((r: any) => r.text));
      cursor = res.body.pagination.nextCursor;
    } while (cursor);
    expect(seen).toEqual([4, 3, 2, 1, 0].map((i) => `Review number ${i} of five.`));
    for (const bad of ['limit=0', 'limit=500', 'cursor=nonsense!']) {
      expect((await t.call('GET', `/v1/workflows/${w}/reviews?${bad}`, { token: stranger })).status, bad).toBe(400);
    }
    const otherList = (await t.call('GET', `/v1/workflows/${workflowId}/reviews?limit=1`, { token: stranger })).body.pagination.nextCursor;
    expect((await t.call('GET', `/v1/workflows/${w}/reviews?cursor=${otherList}`, { token: stranger })).status).toBe(400);
  });

  test('lets the author change and delete their review, and no one else (403); unknown review → 404', async ({
    service: t,
    world: { owner, subscriber, stranger, workflowId },
  }) => {
    const w = (await createWorkflow(t, owner, { visibility: 'public' })).workflowId;
    await t.call('POST', `/v1/library/${w}`, { token: stranger, body: {} });
    await t.call('POST', `/v1/library/${w}`, { token: subscriber, body: {} });
    const review = (await post(t, stranger, w, { rating: 2, text: TEXT })).body.data;
    await post(t, subscriber, w, { rating: 5, text: TEXT });
    expect(await statsOf(t, owner, w)).toMatchObject({ rating: 3.5, ratingCount: 2 });
    const path = `/v1/workflows/${w}/reviews/${review.reviewId}`;

    const changed = await t.call('PUT', path, { token: stranger, body: { rating: 4, text: 'Better after the update.' } });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({
      reviewId: review.reviewId,
      rating: 4,
      text: 'Better after the update.',
      createdAt: review.createdAt,
    });
    expect(await statsOf(t, owner, w)).toMatchObject({ rating: 4.5, ratingCount: 2 });
    expect((await t.call('PUT', path, { token: stranger, body: { rating: 7, text: TEXT } })).status).toBe(400);
    expect((await t.call('PUT', path, { token: stranger, body: { rating: 4 } })).status).toBe(400);

    for (const token of [subscriber, owner]) {
      expect((await t.call('PUT', path, { token, body: { rating: 1, text: TEXT } })).status).toBe(403);
      expect((await t.call('DELETE', path, { token })).status).toBe(403);
    }
    expect(
      (await t.call('PUT', `/v1/workflows/${w}/reviews/rev_unknown`, { token: stranger, body: { rating: 1, text: TEXT } })).status,
    ).toBe(404);
    // The review exists, but not under this workflow.
    expect((await t.call('DELETE', `/v1/workflows/${workflowId}/reviews/${review.reviewId}`, { token: stranger })).status).toBe(404);

    const deleted = await t.call('DELETE', path, { token: stranger });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ reviewId: review.reviewId, workflowId: w, deleted: true });
    expect(await statsOf(t, owner, w)).toMatchObject({ rating: 5, ratingCount: 1 });
    expect((await t.call('DELETE', path, { token: stranger })).status).toBe(404);
    // Deleting frees the slot: the author may review again.
    expect((await post(t, stranger, w, { rating: 3, text: TEXT })).status).toBe(201);
    expect(await storedVersusActual(t, w)).toEqual({ stored: [8, 2], actual: [8, 2] });
  });

  test('keeps ratingSum and ratingCount exact under concurrent reviews, changes and deletions', async ({
    service: t,
    world: { owner },
  }) => {
    const w = (await createWorkflow(t, owner, { visibility: 'public' })).workflowId;
    const users = await tokens(t, 'concurrent', 10);
    for (const u of users) expect((await t.call('POST', `/v1/library/${w}`, { token: u, body: {} })).status).toBe(201);
    const created = await Promise.all(users.map((u, i) => post(t, u, w, { rating: (i % 5) + 1, text: `Concurrent review ${i}.` })));
    expect(created.map((r) => r.status)).toEqual(users.map(() => 201));
    expect(await storedVersusActual(t, w)).toEqual({ stored: [30, 10], actual: [30, 10] });
    expect(await statsOf(t, owner, w)).toMatchObject({ rating: 3, ratingCount: 10 });

    // Half change their rating to 5 while the other half delete theirs, all at once.
    const ops = users.map((u, i) => {
      const path = `/v1/workflows/${w}/reviews/${created[i]!.body.data.reviewId}`;
      return i % 2 === 0
        ? t.call('PUT', path, { token: u, body: { rating: 5, text: 'Changed my mind.' } })
        : t.call('DELETE', path, { token: u });
    });
    expect((await Promise.all(ops)).map((r) => r.status)).toEqual(users.map(() => 200));
    expect(await storedVersusActual(t, w)).toEqual({ stored: [25, 5], actual: [25, 5] });
  });

  test('lets only one of several concurrent first reviews by one user in', async ({ service: t, world: { owner } }) => {
    const w = (await createWorkflow(t, owner, { visibility: 'public' })).workflowId;
    const u = await t.token('double-reviewer@example.com');
    await t.call('POST', `/v1/library/${w}`, { token: u, body: {} });
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => post(t, u, w, { rating: i + 1, text: TEXT })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(4);
    const { stored, actual } = await storedVersusActual(t, w);
    expect(stored).toEqual(actual);
    expect(stored[1]).toBe(1);
  });

  test(`runs through GraphQL, with workflow.reviews as a connection (${testDatabaseKind()})`, async ({
    service: t,
    world: { owner, stranger },
  }) => {
    const w = (await createWorkflow(t, owner, { visibility: 'public' })).workflowId;
    await t.call('POST', `/v1/library/${w}`, { token: stranger, body: {} });
    const created = await t.graphql(
      'mutation($w: String!) { createReview(workflowId: $w, rating: 5, text: "Through GraphQL, works.") { reviewId rating author { userId handle } } }',
      { w },
      stranger,
    );
    expect(created.body.errors).toBeUndefined();
    const bad = await t.graphql(
      'mutation($w: String!) { createReview(workflowId: $w, rating: 9, text: "short") { reviewId } }',
      { w },
      stranger,
    );
    expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
    const read = await t.graphql(
      `query($w: String!) {
        workflow(workflowId: $w) { reviews(first: 5) { totalCount edges { node { rating text author { handle } } } pageInfo { hasNextPage } } }
        workflowReviews(workflowId: $w) { data { reviewId } pagination { count } }
      }`,
      { w },
      owner,
    );
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.workflow.reviews).toMatchObject({
      totalCount: 1,
      edges: [{ node: { rating: 5, text: 'Through GraphQL, works.' } }],
      pageInfo: { hasNextPage: false },
    });
    expect(read.body.data.workflowReviews.data).toEqual([{ reviewId: created.body.data.createReview.reviewId }]);
    expect(read.text).not.toContain('@example.com');
  });
});
