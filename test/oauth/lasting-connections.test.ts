import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { MovableClock } from '../helpers/clock.js';
import { MCP_ACCEPT } from '../helpers/mcp.js';
import {
  answerConsent,
  authorizationUrl,
  authorize,
  createBrowser,
  exchangeCode,
  OAUTH_ENV,
  OAUTH_ORIGIN,
  ownerWithDeployments,
  pkcePair,
  REDIRECT_URI,
  registerClient,
  toConsent,
  tokenRequest,
  type TestBrowser,
} from '../helpers/oauth.js';
import { serviceTestWith } from '../helpers/service-test.js';

/**
 * IDE connections that last as documented (issue: connections died with the authorization
 * server's 24-hour browser session, with its sign-out, and with a second authorization of the
 * same client) and a token endpoint that never loses a refresh. The clock is moved, never waited.
 */
const ORIGIN = OAUTH_ORIGIN;
const OWNER = 'lasting@example.com';
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

const clock = new MovableClock();
const endpoint = (id: string) => `${ORIGIN}/v1/mcp/${id}`;

/** What the file's tests share: two deployments of OWNER's, a browser, and the calls they make of the service. */
async function seed(t: TestApp) {
  const [depA, depB] = (await ownerWithDeployments(t, OWNER, ['Deployment A', 'Deployment B'])).deploymentIds;
  const browser = createBrowser(t.app, ORIGIN);

  /** Authorizes `clientId` for a deployment through sign-in and consent, and exchanges the code. */
  async function connect(clientId: string, deploymentId: string, as: TestBrowser = browser, email = OWNER) {
    const authorization = await authorize(t.app, as, ORIGIN, { clientId, resource: endpoint(deploymentId), email });
    const issued = await exchangeCode(t.app, ORIGIN, authorization);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    return issued.body as { access_token: string; refresh_token: string };
  }

  const refresh = (clientId: string, refreshToken: string) =>
    tokenRequest(t.app, ORIGIN, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });

  const toolsList = (deploymentId: string, accessToken: string) =>
    t.call('POST', `/v1/mcp/${deploymentId}`, {
      token: accessToken,
      headers: MCP_ACCEPT,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    });

  async function connectedApps(as: TestBrowser = browser) {
    const session = [...as.jars.get(ORIGIN)!].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await t.app.fetch(
      new Request(`${ORIGIN}/graphql`, {
        method: 'POST',
        headers: { cookie: session, origin: ORIGIN, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ connectedApps { connectedAppId clientId deploymentIds } }' }),
      }),
    );
    return ((await res.json()) as { data: { connectedApps: { connectedAppId: string; clientId: string; deploymentIds: string[] }[] } }).data
      .connectedApps;
  }

  return { depA, depB, browser, connect, refresh, toolsList, connectedApps };
}

/** The service on a clock the tests move (never waited for). */
const test = serviceTestWith(OAUTH_ENV, { clock }).extend<{ world: Awaited<ReturnType<typeof seed>> }>({
  world: [async ({ service }, use) => use(await seed(service)), { scope: 'file' }],
});

describe('IDE connections that last', () => {
  test('a refresh 25 hours later works (the 24-hour session of the authorization server does not end it)', async ({
    service: t,
    world: { depA, connect, refresh, toolsList },
  }) => {
    const clientId = await registerClient(t.app, ORIGIN);
    const tokens = await connect(clientId, depA);
    clock.offsetMs += 25 * HOUR;
    const refreshed = await refresh(clientId, tokens.refresh_token);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect((await toolsList(depA, refreshed.body.access_token)).status).toBe(200);
  });

  test('a refresh token is good for 30 days from its last use: day 29 works (twice over), day 31 fails', async ({
    service: t,
    world: { depA, connect, refresh, toolsList, connectedApps },
  }) => {
    const clientId = await registerClient(t.app, ORIGIN);
    const first = await connect(clientId, depA);
    clock.offsetMs += 29 * DAY;
    const second = await refresh(clientId, first.refresh_token);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    // 58 days after the connection, 29 after the last use.
    clock.offsetMs += 29 * DAY;
    const third = await refresh(clientId, second.body.refresh_token);
    expect(third.status, JSON.stringify(third.body)).toBe(200);
    expect((await toolsList(depA, third.body.access_token)).status).toBe(200);
    // 31 days after the last use: the connection has lapsed, and the list no longer shows it.
    clock.offsetMs += 31 * DAY;
    // Refused: the refresh token has lapsed, and with it the client registered for this connection.
    const late = await refresh(clientId, third.body.refresh_token);
    expect([400, 401]).toContain(late.status);
    expect(['invalid_grant', 'invalid_client']).toContain(late.body.error);
    const fresh = createBrowser(t.app, ORIGIN);
    await toConsent(fresh, authorizationUrl(ORIGIN, { client_id: await registerClient(t.app, ORIGIN), resource: endpoint(depA) }), OWNER);
    expect((await connectedApps(fresh)).map((a) => a.clientId)).not.toContain(clientId);
  });

  test('authorizing a client for a second deployment keeps the first; connected apps list exactly the two that work', async ({
    service: t,
    world: { depA, depB, connect, refresh, toolsList, connectedApps },
  }) => {
    const clientId = await registerClient(t.app, ORIGIN);
    const onA = await connect(clientId, depA);
    const onB = await connect(clientId, depB);
    expect((await toolsList(depA, onA.access_token)).status).toBe(200);
    expect((await toolsList(depB, onB.access_token)).status).toBe(200);
    const refreshedA = await refresh(clientId, onA.refresh_token);
    expect(refreshedA.status, JSON.stringify(refreshedA.body)).toBe(200);
    const listed = (await connectedApps()).filter((a) => a.clientId === clientId);
    expect(listed.map((a) => a.deploymentIds).sort()).toEqual([[depA], [depB]].sort());

    // The same client for the same deployment again replaces that connection only.
    const againA = await connect(clientId, depA);
    expect((await refresh(clientId, refreshedA.body.refresh_token)).body.error).toBe('invalid_grant');
    expect((await toolsList(depA, againA.access_token)).status).toBe(200);
    expect((await toolsList(depB, onB.access_token)).status).toBe(200);
    const after = (await connectedApps()).filter((a) => a.clientId === clientId);
    expect(after.map((a) => a.deploymentIds).sort()).toEqual([[depA], [depB]].sort());
  });

  test('no sign-out link ends a connection: the provider has no logout endpoint, and the dashboard sign-out leaves IDEs connected', async ({
    service: t,
    world: { depA, browser, connect, refresh, toolsList },
  }) => {
    const clientId = await registerClient(t.app, ORIGIN, { redirect_uris: [REDIRECT_URI, 'https://ide.example/cb'] });
    const tokens = await connect(clientId, depA);
    const logout = await browser.request(
      `/oauth/session/end?client_id=${encodeURIComponent(clientId)}&post_logout_redirect_uri=${encodeURIComponent('https://attacker.example/')}`,
    );
    expect(logout.status).toBe(404);
    expect(logout.headers.get('location')).toBeNull();
    expect(await logout.text()).not.toContain('attacker.example');
    const signOut = await browser.request('/sign-out', { form: {} });
    expect(signOut.status).toBe(303);
    const refreshed = await refresh(clientId, tokens.refresh_token);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect((await toolsList(depA, refreshed.body.access_token)).status).toBe(200);
  });

  describe('the token endpoint never loses a refresh', () => {
    test('a refresh whose answer was lost can be sent again within 5 minutes without revoking anything', async ({
      service: t,
      world: { depA, connect, refresh, toolsList },
    }) => {
      const clientId = await registerClient(t.app, ORIGIN);
      const tokens = await connect(clientId, depA);
      const lost = await refresh(clientId, tokens.refresh_token);
      expect(lost.status).toBe(200);
      // The client never saw `lost`: a minute later it retries with the token it holds.
      clock.offsetMs += 60 * 1000;
      const retried = await refresh(clientId, tokens.refresh_token);
      expect(retried.status, JSON.stringify(retried.body)).toBe(200);
      expect(retried.body.refresh_token).not.toBe(lost.body.refresh_token);
      // The answer it never saw is void (one live refresh token), the connection lives on.
      expect((await refresh(clientId, lost.body.refresh_token)).body.error).toBe('invalid_grant');
      const next = await refresh(clientId, retried.body.refresh_token);
      expect(next.status, JSON.stringify(next.body)).toBe(200);
      expect((await toolsList(depA, next.body.access_token)).status).toBe(200);
    });

    test('after the window, presenting a rotated refresh token again is reuse and revokes the connection', async ({
      service: t,
      world: { depA, connect, refresh, toolsList },
    }) => {
      const clientId = await registerClient(t.app, ORIGIN);
      const tokens = await connect(clientId, depA);
      const rotated = await refresh(clientId, tokens.refresh_token);
      expect(rotated.status).toBe(200);
      clock.offsetMs += 6 * 60 * 1000;
      const reuse = await refresh(clientId, tokens.refresh_token);
      expect(reuse.body.error).toBe('invalid_grant');
      expect((await refresh(clientId, rotated.body.refresh_token)).body.error).toBe('invalid_grant');
      expect((await toolsList(depA, rotated.body.access_token)).status).toBe(401);
    });

    test('within the window too, once the new refresh token was used, the old one is reuse', async ({
      service: t,
      world: { depA, connect, refresh, toolsList },
    }) => {
      const clientId = await registerClient(t.app, ORIGIN);
      const tokens = await connect(clientId, depA);
      const second = await refresh(clientId, tokens.refresh_token);
      const third = await refresh(clientId, second.body.refresh_token);
      expect(third.status).toBe(200);
      expect((await refresh(clientId, tokens.refresh_token)).body.error).toBe('invalid_grant');
      expect((await refresh(clientId, third.body.refresh_token)).body.error).toBe('invalid_grant');
      expect((await toolsList(depA, third.body.access_token)).status).toBe(401);
    });
  });

  test('tokens and codes are stored hashed: no stored id or payload holds them', async ({
    service: t,
    world: { depA, browser, refresh, toolsList },
  }) => {
    const clientId = await registerClient(t.app, ORIGIN);
    const { verifier, challenge } = pkcePair();
    const consent = await toConsent(
      browser,
      authorizationUrl(ORIGIN, { client_id: clientId, code_challenge: challenge, resource: endpoint(depA) }),
      OWNER,
    );
    const code = new URL((await answerConsent(browser, consent, 'confirm')).url).searchParams.get('code')!;
    const issued = await tokenRequest(t.app, ORIGIN, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
    });
    const refreshed = await refresh(clientId, issued.body.refresh_token);
    const secrets = [code, issued.body.access_token, issued.body.refresh_token, refreshed.body.access_token, refreshed.body.refresh_token];
    const rows = await t.database.db.prisma.oAuthRecord.findMany({ select: { id: true, payload: true } });
    const stored = JSON.stringify(rows);
    for (const secret of secrets) expect(stored).not.toContain(secret);
    // …and they still work.
    expect((await toolsList(depA, refreshed.body.access_token)).status).toBe(200);
  });
});
