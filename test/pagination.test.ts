import { describe, expect } from 'vitest';
import { encodeCursor, type CursorValue } from '../src/pagination.js';
import { seedWorkflow, userIdOf } from './helpers/seed.js';
import { serviceTest } from './helpers/service-test.js';

const test = serviceTest.extend<{ token: string; workflowId: string }>({
  token: [async ({ service: t }, use) => use(await t.token('cursors@example.com')), { scope: 'file' }],
  workflowId: [
    async ({ service: t, token }, use) => use(await seedWorkflow(t, await userIdOf(t, token), { visibility: 'public' })),
    { scope: 'file' },
  ],
});

/**
 * A cursor is opaque but comes back from the client: one forged to hold a moment PostgreSQL cannot
 * store, or text it cannot hold, is a 400 on every list, never a 500.
 */
describe('tampered cursors', () => {
  // JavaScript's earliest and latest dates; PostgreSQL's timestamps stop at 4713 BC.
  const farPast = new Date(-8.64e15);
  const farFuture = new Date(8.64e15);

  const lists = (workflowId: string): { path: string; kind: string; time: (d: Date) => CursorValue }[] => [
    { path: '/v1/workflows', kind: 'workflows', time: (d) => d.toISOString() },
    { path: '/v1/library', kind: 'library', time: (d) => d.toISOString() },
    { path: `/v1/workflows/${workflowId}/versions`, kind: `versions:${workflowId}`, time: (d) => d.toISOString() },
    { path: `/v1/workflows/${workflowId}/reviews`, kind: `reviews:${workflowId}`, time: (d) => d.toISOString() },
    { path: '/v1/deployments', kind: 'deployments', time: (d) => d.getTime() },
  ];

  test('answers 400 for a cursor holding a time PostgreSQL cannot store', async ({ service: t, token, workflowId }) => {
    for (const list of lists(workflowId)) {
      for (const moment of [farPast, farFuture, new Date(Date.UTC(-1, 0, 1))]) {
        const cursor = encodeCursor(list.kind, [list.time(moment), 'wf_aaaaaaaaaaaaaaaaaaaa']);
        const res = await t.call('GET', `${list.path}?cursor=${cursor}`, { token });
        expect({ path: list.path, moment: moment.getTime(), status: res.status, code: res.body.error?.code }).toEqual({
          path: list.path,
          moment: moment.getTime(),
          status: 400,
          code: 'VALIDATION_ERROR',
        });
        expect(res.body.error.details.fields).toEqual([{ field: 'cursor', message: expect.stringMatching(/cursor is not valid/) }]);
      }
    }
  });

  test('answers 400 for a cursor whose id holds U+0000', async ({ service: t, token, workflowId }) => {
    for (const list of lists(workflowId)) {
      const cursor = encodeCursor(list.kind, [list.time(new Date()), 'wf_\u0000']);
      const res = await t.call('GET', `${list.path}?cursor=${cursor}`, { token });
      expect({ path: list.path, status: res.status }).toEqual({ path: list.path, status: 400 });
    }
  });

  test('still accepts a well-formed cursor of an ordinary time', async ({ service: t, token, workflowId }) => {
    for (const list of lists(workflowId)) {
      const cursor = encodeCursor(list.kind, [list.time(new Date()), 'zzz']);
      const res = await t.call('GET', `${list.path}?cursor=${cursor}`, { token });
      expect({ path: list.path, status: res.status }).toEqual({ path: list.path, status: 200 });
    }
  });

  test('answers 400 through GraphQL too', async ({ service: t, token, workflowId }) => {
    const cursor = encodeCursor(`versions:${workflowId}`, [farPast.toISOString(), 'x']);
    const res = await t.graphql(
      'query ($id: String!, $c: String) { workflow(workflowId: $id) { versions(cursor: $c) { data { version } } } }',
      { id: workflowId, c: cursor },
      token,
    );
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: [{ field: 'cursor' }] } });
  });
});
