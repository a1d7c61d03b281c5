import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { serviceTest } from '../helpers/service-test.js';
import { createWorkflow } from '../helpers/workflows.js';

/** Spec 2.9: "a workflow cannot be forked twice by the same user", and stats.forks counts users. */
describe('a workflow is forked at most once per user, ever', () => {
  const forks = async (t: TestApp, owner: string, workflowId: string) =>
    (await t.call('GET', `/v1/workflows/${workflowId}`, { token: owner })).body.data.stats.forks;

  serviceTest(
    'refuses a second fork with 409 even after the first fork was deleted; stats.forks never counts a user twice',
    async ({ service: t, alice: owner }) => {
      const original = await createWorkflow(t, owner, { name: 'Fork me once', visibility: 'public' });
      const forker = await t.token('fork-once-forker@example.com');
      const first = await t.call('POST', `/v1/workflows/${original.workflowId}/fork`, { token: forker, body: {} });
      expect(first.status).toBe(201);
      expect(await forks(t, owner, original.workflowId)).toBe(1);

      const twice = await t.call('POST', `/v1/workflows/${original.workflowId}/fork`, { token: forker, body: {} });
      expect(twice.status).toBe(409);
      expect(twice.body.error).toMatchObject({
        code: 'CONFLICT',
        details: { workflowId: original.workflowId, reason: 'already_forked', forkId: first.body.data.workflowId },
      });
      expect(twice.body.error.message).toBe(
        `you have already forked this workflow: your fork is ${first.body.data.workflowId}; a workflow can be forked once per user`,
      );
      // The listing learns it before offering Fork.
      const viewerFork = async (token: string) =>
        (
          await t.graphql(
            'query($id: String!) { workflow(workflowId: $id) { viewerFork { forkId forkedAt } } }',
            { id: original.workflowId },
            token,
          )
        ).body.data.workflow.viewerFork;
      expect(await viewerFork(forker)).toEqual({ forkId: first.body.data.workflowId, forkedAt: expect.any(String) });

      // Fork, delete, fork again: refused every time, the count stays.
      for (let cycle = 0; cycle < 3; cycle += 1) {
        const forkId = cycle === 0 ? first.body.data.workflowId : null;
        if (forkId) expect((await t.call('DELETE', `/v1/workflows/${forkId}`, { token: forker })).status).toBe(200);
        const again = await t.call('POST', `/v1/workflows/${original.workflowId}/fork`, {
          token: forker,
          body: { name: `Again ${cycle}` },
        });
        expect(again.status).toBe(409);
        expect(again.body.error.code).toBe('CONFLICT');
        expect(again.body.error.message).toBe(
          'you forked this workflow before and deleted the fork; a workflow can be forked once per user, so subscribe to it instead',
        );
        expect(again.body.error.details).toEqual({ workflowId: original.workflowId, reason: 'already_forked' });
      }
      expect(await forks(t, owner, original.workflowId)).toBe(1);
      expect(await viewerFork(forker)).toEqual({ forkId: null, forkedAt: expect.any(String) });
      expect(await viewerFork(await t.token('fork-once-never@example.com'))).toBeNull();

      // Through GraphQL too.
      const gql = await t.graphql(
        'mutation($id: String!) { forkWorkflow(workflowId: $id) { workflowId } }',
        { id: original.workflowId },
        forker,
      );
      expect(gql.body.errors[0].extensions.code).toBe('CONFLICT');

      // Another user counts once more.
      const second = await t.token('fork-once-second@example.com');
      expect((await t.call('POST', `/v1/workflows/${original.workflowId}/fork`, { token: second, body: {} })).status).toBe(201);
      expect(await forks(t, owner, original.workflowId)).toBe(2);
    },
  );

  serviceTest('counts concurrent forks by the same user once', async ({ service: t, alice: owner }) => {
    const original = await createWorkflow(t, owner, { name: 'Raced forks', visibility: 'public' });
    const forker = await t.token('fork-once-racer@example.com');
    const results = await Promise.all(
      Array.from({ length: 5 }, () => t.call('POST', `/v1/workflows/${original.workflowId}/fork`, { token: forker, body: {} })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect(await forks(t, owner, original.workflowId)).toBe(1);
  });
});
