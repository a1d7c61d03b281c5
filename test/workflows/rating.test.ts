import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAppWithUsers, type TestApp } from '../helpers/app.js';
import { createWorkflow } from '../helpers/workflows.js';

/**
 * A workflow's mean rating is one computation (src/workflows/stats.ts) shown by every face: spec
 * 2.3's `stats.rating` in the REST answers and GraphQL types of workflows and the marketplace, and
 * `averageRating` of a workflow bundled in a deployment. The tool endpoint shows no rating.
 */
describe('the mean rating on every face', () => {
  let t: TestApp;
  let author: string;
  let reviewers: string[];
  let workflowId: string;
  const NAME = 'Zephyrine rating check';

  const WORKFLOW = `query($id: String!) { workflow(workflowId: $id) { stats { rating ratingCount } } }`;
  const MARKETPLACE = `query($q: String!) {
    marketplace(sort: rating) { data { workflowId stats { rating ratingCount } } }
    marketplaceSearch(q: $q) { data { workflowId stats { rating ratingCount } } }
  }`;
  const DEPLOYMENTS = `{ deployments { data { workflows { workflowId stats { averageRating ratingCount } } } } }`;

  /** The rating figures of the workflow as every face shows them to `token` (the first reviewer has it deployed). */
  async function everyFace(token: string) {
    const rest = (await t.call('GET', `/v1/workflows/${workflowId}`, { token })).body.data.stats;
    const browse = (await t.call('GET', '/v1/marketplace?sort=rating', { token })).body.data;
    const search = (await t.call('GET', `/v1/marketplace/search?q=${encodeURIComponent('zephyrine')}`, { token })).body.data;
    const gql = await t.graphql(WORKFLOW, { id: workflowId }, token);
    const market = await t.graphql(MARKETPLACE, { q: 'zephyrine' }, token);
    const deployments = await t.graphql(DEPLOYMENTS, {}, token);
    for (const res of [gql, market, deployments]) expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    const mine = (list: any[]) => list.find((w) => w.workflowId === workflowId)?.stats;
    return {
      rest,
      restBrowse: mine(browse),
      restSearch: mine(search),
      graphql: gql.body.data.workflow.stats,
      graphqlBrowse: mine(market.body.data.marketplace.data),
      graphqlSearch: mine(market.body.data.marketplaceSearch.data),
      deployment: mine(deployments.body.data.deployments.data.flatMap((d: any) => d.workflows)),
    };
  }

  beforeAll(async () => {
    [t, author, ...reviewers] = await startTestAppWithUsers([
      'rating-author@example.com',
      'rating-reviewer-1@example.com',
      'rating-reviewer-2@example.com',
      'rating-reviewer-3@example.com',
    ]);
    workflowId = (await createWorkflow(t, author, { name: NAME, visibility: 'public' })).workflowId;
    for (const token of reviewers) {
      expect((await t.call('POST', `/v1/library/${workflowId}`, { token, body: {} })).status).toBe(201);
    }
    const created = await t.call('POST', '/v1/deployments', {
      token: reviewers[0]!,
      body: { name: 'Rated bundle', workflowIds: [workflowId] },
    });
    expect(created.status, created.text).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** What every face shows for `rating` over `ratingCount` reviews (the deployment's averageRating is null without any). */
  function shownEverywhere(rating: number, ratingCount: number) {
    const spec = { rating, ratingCount };
    const rest = { forks: 0, subscribers: 3, ...spec };
    return {
      rest,
      restBrowse: rest,
      restSearch: rest,
      graphql: spec,
      graphqlBrowse: spec,
      graphqlSearch: spec,
      deployment: { averageRating: ratingCount === 0 ? null : rating, ratingCount },
    };
  }

  it('shows no rating as 0 in stats.rating and as null in averageRating', async () => {
    expect(await everyFace(reviewers[0]!)).toEqual(shownEverywhere(0, 0));
  });

  it('shows the same mean, to one decimal, on every face', async () => {
    // 5, 4 and 4: a mean of 4.333…, which every face shows as 4.3.
    for (const [i, rating] of [5, 4, 4].entries()) {
      const res = await t.call('POST', `/v1/workflows/${workflowId}/reviews`, {
        token: reviewers[i]!,
        body: { rating, text: 'Useful on every pull request.' },
      });
      expect(res.status, res.text).toBe(201);
    }
    expect(await everyFace(reviewers[0]!)).toEqual(shownEverywhere(4.3, 3));
  });
});
