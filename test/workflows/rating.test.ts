import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createWorkflow } from '../helpers/workflows.js';
import { serviceTest } from '../helpers/service-test.js';

const NAME = 'Zephyrine rating check';

/** A public workflow, subscribed to by three reviewers; the first has it in a deployment. */
const test = serviceTest.extend<{ rated: { reviewers: string[]; workflowId: string } }>({
  rated: [
    async ({ service: t }, use) => {
      const author = await t.token('rating-author@example.com');
      const reviewers: string[] = [];
      for (const i of [1, 2, 3]) reviewers.push(await t.token(`rating-reviewer-${i}@example.com`));
      const workflowId = (await createWorkflow(t, author, { name: NAME, visibility: 'public' })).workflowId;
      for (const token of reviewers) {
        expect((await t.call('POST', `/v1/library/${workflowId}`, { token, body: {} })).status).toBe(201);
      }
      const created = await t.call('POST', '/v1/deployments', {
        token: reviewers[0]!,
        body: { name: 'Rated bundle', workflowIds: [workflowId] },
      });
      expect(created.status, created.text).toBe(201);
      await use({ reviewers, workflowId });
    },
    { scope: 'file' },
  ],
});

/**
 * A workflow's mean rating is one computation (src/workflows/stats.ts) shown by every face: spec
 * 2.3's `stats.rating` in the REST answers and GraphQL types of workflows and the marketplace, and
 * `averageRating` of a workflow bundled in a deployment. The tool endpoint shows no rating.
 */
describe('the mean rating on every face', () => {
  const WORKFLOW = `query($id: String!) { workflow(workflowId: $id) { stats { rating ratingCount } } }`;
  const MARKETPLACE = `query($q: String!) {
    marketplace(sort: rating) { data { workflowId stats { rating ratingCount } } }
    marketplaceSearch(q: $q) { data { workflowId stats { rating ratingCount } } }
  }`;
  const DEPLOYMENTS = `{ deployments { data { workflows { workflowId stats { averageRating ratingCount } } } } }`;

  /** The rating figures of the workflow as every face shows them to `token` (the first reviewer has it deployed). */
  async function everyFace(t: TestApp, workflowId: string, token: string) {
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

  test('shows no rating as 0 in stats.rating and as null in averageRating', async ({ service: t, rated: { reviewers, workflowId } }) => {
    expect(await everyFace(t, workflowId, reviewers[0]!)).toEqual(shownEverywhere(0, 0));
  });

  test('shows the same mean, to one decimal, on every face', async ({ service: t, rated: { reviewers, workflowId } }) => {
    // 5, 4 and 4: a mean of 4.333…, which every face shows as 4.3.
    for (const [i, rating] of [5, 4, 4].entries()) {
      const res = await t.call('POST', `/v1/workflows/${workflowId}/reviews`, {
        token: reviewers[i]!,
        body: { rating, text: 'Useful on every pull request.' },
      });
      expect(res.status, res.text).toBe(201);
    }
    expect(await everyFace(t, workflowId, reviewers[0]!)).toEqual(shownEverywhere(4.3, 3));
  });
});
