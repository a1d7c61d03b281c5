import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { asksForJson, plainParams, sendsJson } from '../../src/graphql/plain-post.js';
import * as plainPost from '../../src/graphql/plain-post.js';
import { createLogger } from '../../src/logger.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createWorkflow } from '../helpers/workflows.js';

// Counts the fast path's answers, calling through to the real function.
vi.mock('../../src/graphql/plain-post.js', async (original) => {
  const real = await original<typeof import('../../src/graphql/plain-post.js')>();
  return { ...real, answerPlainPost: vi.fn(real.answerPlainPost) };
});

/**
 * Plain JSON POSTs to /graphql skip Yoga's HTTP layer (src/graphql/plain-post.ts). The same
 * requests, sent to an instance with the fast path and to one without it on the same database,
 * must get the same status, headers and body, whether the fast path answers or leaves the request
 * to Yoga.
 */
describe('plain JSON POSTs to /graphql answer as Yoga does', () => {
  let t: TestApp;
  let yogaOnly: App;
  let token: string;
  let workflowId: string;
  const answered = vi.mocked(plainPost.answerPlainPost);

  beforeAll(async () => {
    t = await startTestApp();
    yogaOnly = await createApp(t.config, {
      database: t.database.db,
      logger: createLogger('silent'),
      dashboardDir: null,
      plainGraphQLPosts: false,
    });
    token = await t.token('alice@example.com');
    workflowId = (await createWorkflow(t, token, { name: 'Compared', visibility: 'public' })).workflowId as string;
  });

  afterAll(async () => {
    await yogaOnly?.close();
    await t?.close();
  });

  async function both(body: string, headers: Record<string, string> = {}) {
    const send = async (app: App) => {
      const response = await app.fetch(
        new Request('http://127.0.0.1/graphql', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
          body,
        }),
      );
      const kept: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        if (name !== 'x-request-id' && !name.startsWith('x-ratelimit-')) kept[name] = value;
      });
      return { status: response.status, headers: kept, text: await response.text() };
    };
    answered.mockClear();
    const fast = await send(t.app);
    const fastAnswered = answered.mock.results.length > 0 && (await answered.mock.results[0]!.value) !== null;
    const yoga = await send(yogaOnly);
    return { fast, yoga, fastAnswered };
  }

  const cases: { name: string; body: unknown; headers?: Record<string, string>; fast: boolean }[] = [
    { name: 'a read', body: { query: '{ me { userId email workflowCount } }' }, fast: true },
    { name: 'a read asking for JSON', body: { query: '{ me { email } }' }, headers: { accept: 'application/json' }, fast: true },
    {
      name: 'variables and one of two operations',
      body: {
        query: 'query A($id: String!) { workflow(workflowId: $id) { name visibility } } query B { me { email } }',
        variables: { id: '$WORKFLOW' },
        operationName: 'A',
      },
      fast: true,
    },
    { name: 'null variables and operation name', body: { query: '{ me { email } }', variables: null, operationName: null }, fast: true },
    { name: 'a resolver refusing (not found)', body: { query: '{ workflow(workflowId: "wf_missing") { name } }' }, fast: true },
    {
      name: 'a mutation refusing its input',
      body: { query: 'mutation { createWorkflow(name: "Refused", manifest: { nope: true }) { workflowId } }' },
      fast: true,
    },
    {
      name: 'a variable of the wrong type',
      body: { query: 'query ($id: String!) { workflow(workflowId: $id) { name } }', variables: { id: 7 } },
      fast: true,
    },
    { name: 'a variable missing', body: { query: 'query ($id: String!) { workflow(workflowId: $id) { name } }' }, fast: true },
    { name: 'an unknown field (validation)', body: { query: '{ me { nope } }' }, fast: false },
    { name: 'a syntax error', body: { query: '{ me { email }' }, fast: false },
    { name: 'an unknown operation name', body: { query: 'query A { me { email } }', operationName: 'B' }, fast: false },
    { name: 'two operations and no name', body: { query: 'query A { me { email } } query B { me { userId } }' }, fast: false },
    { name: 'extensions', body: { query: '{ me { email } }', extensions: {} }, fast: false },
    { name: 'an unexpected parameter', body: { query: '{ me { email } }', other: 1 }, fast: false },
    { name: 'variables as a string', body: { query: '{ me { email } }', variables: '{}' }, fast: false },
    { name: 'no query', body: { variables: {} }, fast: false },
    { name: 'an array (batch)', body: [{ query: '{ me { email } }' }], fast: false },
    {
      name: 'the GraphQL response media type',
      body: { query: '{ me { email } }' },
      headers: { accept: 'application/graphql-response+json' },
      fast: false,
    },
    { name: 'any media type', body: { query: '{ me { email } }' }, headers: { accept: '*/*' }, fast: false },
    {
      name: 'another content type',
      body: { query: '{ me { email } }' },
      headers: { 'content-type': 'application/graphql+json' },
      fast: false,
    },
  ];

  for (const c of cases) {
    it(`${c.name}: ${c.fast ? "answered without Yoga's HTTP layer" : 'left to Yoga'}, the same answer`, async () => {
      const body = JSON.stringify(c.body).replace('$WORKFLOW', workflowId);
      const { fast, yoga, fastAnswered } = await both(body, c.headers);
      expect(fastAnswered).toBe(c.fast);
      expect(fast).toEqual(yoga);
    });
  }

  it('reads only what Yoga would read as is', () => {
    expect(asksForJson(null)).toBe(true);
    expect(asksForJson('Application/JSON; charset=UTF-8')).toBe(true);
    expect(asksForJson('application/json, text/event-stream')).toBe(false);
    expect(asksForJson('application/json; charset=latin1')).toBe(false);
    expect(sendsJson('application/json')).toBe(true);
    expect(sendsJson(null)).toBe(false);
    expect(sendsJson('text/plain')).toBe(false);
    expect(plainParams('{"query":"{ a }","variables":{"x":1},"operationName":"A"}')).toEqual({
      query: '{ a }',
      variables: { x: 1 },
      operationName: 'A',
    });
    expect(plainParams('{"query":""}')).toBeNull();
    expect(plainParams('not json')).toBeNull();
    expect(plainParams('{"query":"{ a }","variables":[]}')).toBeNull();
  });
});
