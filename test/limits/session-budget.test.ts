import { describe, expect } from 'vitest';
import { planLimits } from '../../src/limits/plans.js';
import type { CallResult } from '../helpers/app.js';
import { initializeRequest, MCP_ACCEPT } from '../helpers/mcp.js';
import { seedWorkflow, userIdOf } from '../helpers/seed.js';
import { serviceTestWith } from '../helpers/service-test.js';

/**
 * The dashboard's budget: requests with the browser session cookie are counted per user against a
 * budget of their own, so a person using the dashboard never spends what the same user's IDE and
 * scripts (API keys, tokens) may use, and the reverse. The plan's limits keep holding for those.
 */
const ORIGIN = 'http://127.0.0.1';
const EMAIL = 'dashboard-person@example.com';

/** How the person reaches the service: the dashboard with its session cookie, an API key, the tool endpoint with an MCP key. */
interface Callers {
  withCookie(query: string): Promise<CallResult>;
  withKey(query: string): Promise<CallResult>;
  mcpCall(): Promise<CallResult>;
}

/** The service with the rate limit enforced, and the one person signed in on the dashboard and holding two keys. */
const test = serviceTestWith({
  RATE_LIMIT_MODE: 'enforce',
  PUBLIC_BASE_URL: `${ORIGIN}/v1`,
  MCP_SESSION_SECRET: 'a-test-session-secret-of-at-least-32-characters',
}).extend<{ callers: Callers }>({
  callers: [
    async ({ service: t }, use) => {
      const signIn = await t.app.fetch(
        new Request(`${ORIGIN}/sign-in/dev`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
          body: new URLSearchParams({ email: EMAIL, return: '/workflows' }).toString(),
        }),
      );
      expect(signIn.status).toBe(303);
      const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
      // The same person's development token (same identity) makes the keys an IDE would hold.
      const token = await t.token(EMAIL, { plan: 'free' });
      const userId = await userIdOf(t, token);
      const apiKey = (await t.call('POST', '/v1/api-keys', { token, body: { name: 'Scripts', scope: 'api' } })).body.data.secret;
      const mcpKey = (await t.call('POST', '/v1/api-keys', { token, body: { name: 'IDE', scope: 'mcp' } })).body.data.secret;
      const workflowId = await seedWorkflow(t, userId, { name: 'Session pipeline' });
      const deploymentId = (await t.call('POST', '/v1/deployments', { token, body: { name: 'Mine', workflowIds: [workflowId] } })).body.data
        .deploymentId;

      const withCookie = async (query: string): Promise<CallResult> =>
        t.call('POST', '/graphql', { headers: { cookie, origin: ORIGIN, 'sec-fetch-site': 'same-origin' }, body: { query } });
      const withKey = (query: string) => t.graphql(query, {}, apiKey);
      const mcpCall = () =>
        t.call('POST', `/v1/mcp/${deploymentId}`, {
          token: mcpKey,
          headers: MCP_ACCEPT,
          body: initializeRequest({ clientName: 'claude-code' }),
        });
      await use({ withCookie, withKey, mcpCall });
    },
    { scope: 'file' },
  ],
});

describe('the dashboard session and the API keys of one user have separate budgets (free plan, enforced)', () => {
  test('60 dashboard requests in a minute are served, and the API keys still have their whole budget', async ({
    callers: { withCookie, withKey, mcpCall },
  }) => {
    const free = planLimits('free');
    expect(free.sessionRequestsPerMinute).toBeGreaterThan(60);
    for (let i = 1; i <= 60; i += 1) {
      const res = await withCookie('{ me { userId plan } }');
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe(String(free.sessionRequestsPerMinute));
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(free.sessionRequestsPerMinute - i));
    }
    // The user's API budget: the setup made 4 requests with the token (me, two keys, the deployment);
    // none of the 60 was charged to it (at most 5 spent, fewer if its minute has turned since).
    const viaKey = await withKey('{ me { userId } }');
    expect(viaKey.status).toBe(200);
    expect(viaKey.headers.get('x-ratelimit-limit')).toBe(String(free.requestsPerMinute));
    expect(Number(viaKey.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(free.requestsPerMinute - 5);
    const mcp = await mcpCall();
    expect(mcp.status).toBe(200);
    expect(Number(mcp.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(free.requestsPerMinute - 6);
  });

  test("the plan's API limit still holds for keys, and using it up leaves the dashboard working", async ({
    callers: { withCookie, withKey, mcpCall },
  }) => {
    let last: CallResult | undefined;
    for (let i = 0; i < 40 && last?.status !== 429; i += 1) last = await withKey('{ me { userId } }');
    expect(last!.status).toBe(429);
    expect(last!.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 30, window: 'minute' } });
    expect((await mcpCall()).status).toBe(429);
    const dashboard = await withCookie('{ me { userId } }');
    expect(dashboard.status).toBe(200);
  });

  test('the session budget is bounded too: past it the dashboard is refused, with the GraphQL error', async ({
    callers: { withCookie },
  }) => {
    const limit = planLimits('free').sessionRequestsPerMinute;
    let last: CallResult | undefined;
    for (let i = 0; i <= limit && last?.status !== 429; i += 1) last = await withCookie('{ me { userId } }');
    expect(last!.status).toBe(429);
    expect(last!.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', details: { limit, window: 'minute' } });
  });
});
