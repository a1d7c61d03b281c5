import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor, type CursorValue } from '../src/pagination.js';
import { startTestAppWithUsers, type TestApp } from './helpers/app.js';
import { seedWorkflow, userIdOf } from './helpers/seed.js';

/**
 * A cursor is opaque but comes back from the client: one forged to hold a moment PostgreSQL cannot
 * store, or text it cannot hold, is a 400 on every list, never a 500.
 */
describe('tampered cursors', () => {
  let t: TestApp;
  let token: string;
  let workflowId: string;

  beforeAll(async () => {
    [t, token] = await startTestAppWithUsers(['cursors@example.com']);
    workflowId = await seedWorkflow(t, await userIdOf(t, token), { visibility: 'public' });
  });
  afterAll(() => t?.close());

  // JavaScript's earliest and latest dates; PostgreSQL's timestamps stop at 4713 BC.
  const farPast = new Date(-8.64e15);
  const farFuture = new Date(8.64e15);

  const lists = (): { path: string; kind: string; time: (d: Date) => CursorValue }[] => [
    { path: '/v1/workflows', kind: 'workflows', time: (d) => d.toISOString() },
    { path: '/v1/library', kind: 'library', time: (d) => d.toISOString() },
    { path: `/v1/workflows/${workflowId}/versions`, kind: `versions:${workflowId}`, time: (d) => d.toISOString() },
    { path: `/v1/workflows/${workflowId}/reviews`, kind: `reviews:${workflowId}`, time: (d) => d.toISOString() },
    { path: '/v1/deployments', kind: 'deployments', time: (d) => d.getTime() },
  ];

  it('answers 400 for a cursor holding a time PostgreSQL cannot store', async () => {
    for (const list of lists()) {
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

  it('answers 400 for a cursor whose id holds U+0000', async () => {
    for (const list of lists()) {
      const cursor = encodeCursor(list.kind, [list.time(new Date()), 'wf_\u0000']);
      const res = await t.call('GET', `${list.path}?cursor=${cursor}`, { token });
      expect({ path: list.path, status: res.status }).toEqual({ path: list.path, status: 400 });
    }
  });

  it('still accepts a well-formed cursor of an ordinary time', async () => {
    for (const list of lists()) {
      const cursor = encodeCursor(list.kind, [list.time(new Date()), 'zzz']);
      const res = await t.call('GET', `${list.path}?cursor=${cursor}`, { token });
      expect({ path: list.path, status: res.status }).toEqual({ path: list.path, status: 200 });
    }
  });

  it('answers 400 through GraphQL too', async () => {
    const cursor = encodeCursor(`versions:${workflowId}`, [farPast.toISOString(), 'x']);
    const res = await t.graphql(
      'query ($id: String!, $c: String) { workflow(workflowId: $id) { versions(cursor: $c) { data { version } } } }',
      { id: workflowId, c: cursor },
      token,
    );
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: [{ field: 'cursor' }] } });
  });
});
