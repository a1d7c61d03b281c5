import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testOAuthJwks, type TestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';
import { AUDIENCE, ISSUER, startFakeIdp, type FakeIdp } from '../helpers/identity-provider.js';
import { serviceTestWith } from '../helpers/service-test.js';

let statements = 0;

/** The file's service: the rate limit enforced, on a database that counts its statements. */
const test = serviceTestWith({ RATE_LIMIT_MODE: 'enforce' }, { database: () => createTestDatabase({ onQuery: () => (statements += 1) }) });

/** A GraphQL request is charged one rate-limit unit per root field, before anything runs. */
describe('rate-limit charge of a GraphQL request', () => {
  const searches = (n: number) =>
    `{ ${Array.from({ length: n }, (_, i) => `s${i}: marketplaceSearch(q: "lint", limit: 100) { pagination { count } }`).join(' ')} }`;

  test('charges 30 aliased searches as 30 requests, and refuses the next request of the minute', async ({ service: t }) => {
    const token = await t.token('searcher@example.com', { plan: 'free' });
    const res = await t.graphql(searches(30), {}, token);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.headers.get('x-ratelimit-limit')).toBe('30');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    const next = await t.graphql('{ me { userId } }', {}, token);
    expect(next.status).toBe(429);
    expect(next.body.errors[0].extensions.code).toBe('RATE_LIMITED');
  });

  test('refuses a request whose root fields do not fit in the window with 429 before reading anything', async ({ service: t }) => {
    const token = await t.token('greedy@example.com', { plan: 'free' });
    await t.graphql('{ me { userId } }', {}, token);
    const before = statements;
    // 1 unit spent above, 1 charged on authentication, 29 more needed for 30 root fields: 31 > 30.
    const res = await t.graphql(searches(30), {}, token);
    expect(statements - before).toBeLessThanOrEqual(2); // the viewer and its plan, nothing of the searches
    expect(res.status).toBe(429);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', details: { window: 'minute', limit: 30 } });
    expect(res.body.errors[0].extensions.http).toBeUndefined();
    expect(res.body.data).toBeUndefined();
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  test('charges a nested read of one root field as one request', async ({ service: t }) => {
    const token = await t.token('nested@example.com', { plan: 'free' });
    const res = await t.graphql(
      '{ __typename me { userId workflows { data { workflowId } } library { data { libraryId } } deployments { deploymentId } } }',
      {},
      token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.headers.get('x-ratelimit-remaining')).toBe('29');
  });
});

/** In production the schema stays hidden: no introspection, and no "Did you mean …" hints. */
describe('GraphQL in production', () => {
  let t: TestApp;
  let idp: FakeIdp;
  let token: string;

  // A service of its own: its settings are not the file's, and the serviceTest fixture gives a file one service.
  beforeAll(async () => {
    idp = await startFakeIdp();
    t = await startTestApp({
      env: {
        NODE_ENV: 'production',
        OIDC_ISSUER: ISSUER,
        OIDC_AUDIENCE: AUDIENCE,
        OIDC_JWKS_URL: idp.jwksUrl,
        MCP_SESSION_SECRET: randomBytes(32).toString('hex'),
        OAUTH_JWKS: testOAuthJwks(),
        METRICS_TOKEN: randomBytes(16).toString('hex'),
      },
    });
    token = await idp.sign({ sub: 'prod-user', email: 'prod@example.com' });
  });
  afterAll(async () => {
    await t?.close();
    await idp?.close();
  });

  it('names no field, argument, type or enum value that the caller did not write', async () => {
    const cases = [
      '{ me { userI } }',
      '{ workflows(limt: 5) { pagination { count } } }',
      'query ($v: Visibilty) { workflows(visibility: $v) { pagination { count } } }',
      '{ workflows(visibility: publik) { pagination { count } } }',
    ];
    for (const query of cases) {
      const res = await t.graphql(query, {}, token);
      expect(res.body.errors?.length).toBeGreaterThan(0);
      for (const error of res.body.errors) expect(error.message).not.toMatch(/did you mean/i);
    }
    const coerced = await t.graphql(
      'query ($v: Visibility) { workflows(visibility: $v) { pagination { count } } }',
      { v: 'publik' },
      token,
    );
    expect(coerced.body.errors[0].message).not.toMatch(/did you mean/i);
    expect(coerced.body.errors[0].message).toMatch(/publik/);
    expect(coerced.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  });

  it('keeps the hints outside production', async () => {
    // A service of its own: its settings are not the file's, and the serviceTest fixture gives a file one service.
    const dev = await startTestApp();
    try {
      const res = await dev.graphql('{ me { userI } }', {}, await dev.token('dev@example.com'));
      expect(res.body.errors[0].message).toMatch(/Did you mean "userId"/);
    } finally {
      await dev.close();
    }
  });
});
