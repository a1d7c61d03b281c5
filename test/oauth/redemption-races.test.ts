import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { testDatabaseKind } from '../helpers/database.js';
import { MCP_ACCEPT } from '../helpers/mcp.js';
import {
  authorizationUrl,
  authorize,
  createBrowser,
  exchangeCode,
  OAUTH_ENV,
  OAUTH_ORIGIN,
  ownerWithDeployments,
  toConsent,
  tokenRequest,
  type Authorization,
} from '../helpers/oauth.js';

/**
 * Single use under concurrency, on PostgreSQL (where requests really run in parallel): one
 * authorization code or refresh token redeemed 10 times at once, on one instance and across two
 * instances sharing the database, and access tokens written while their grant is being revoked.
 */
const ORIGIN = OAUTH_ORIGIN;
const OWNER = 'races@example.com';

describe.skipIf(testDatabaseKind() !== 'postgres')('redemption races (PostgreSQL)', () => {
  let t: TestApp;
  let second: App;
  let dep: string;
  const instances = () => [t.app, second];

  // Starts its own service: a second instance runs on the same database, and the races between
  // the two are what these tests are about.
  beforeAll(async () => {
    t = await startTestApp({ env: OAUTH_ENV });
    // A second instance: its own process state and its own pool on the same database.
    second = await createApp(
      loadConfig({
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        RATE_LIMIT_MODE: 'report',
        DATABASE_URL: t.database.url!,
        DATA_DIR: t.dataDir,
        ...OAUTH_ENV,
      }),
      { logger: createLogger('silent') },
    );
    [dep] = (await ownerWithDeployments(t, OWNER, ['Raced'])).deploymentIds;
  });
  afterAll(async () => {
    await second?.close();
    await t?.close();
  });

  const codeFor = () => authorize(t.app, createBrowser(t.app, ORIGIN), ORIGIN, { resource: `${ORIGIN}/v1/mcp/${dep}`, email: OWNER });
  const redeem = (app: App, a: Authorization) => exchangeCode(app, ORIGIN, a);
  const refresh = (app: App, clientId: string, refreshToken: string) =>
    tokenRequest(app, ORIGIN, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
  const toolsList = (accessToken: string) =>
    t.call('POST', `/v1/mcp/${dep}`, {
      token: accessToken,
      headers: MCP_ACCEPT,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    });

  async function workingAccessTokens(answers: { status: number; body: Record<string, any> }[]) {
    let working = 0;
    for (const a of answers) if (a.status === 200 && (await toolsList(a.body.access_token)).status === 200) working += 1;
    return working;
  }

  for (const across of [false, true]) {
    const where = across ? 'across two instances' : 'on one instance';
    it(`one authorization code redeemed 10 times at once gives one token, ${where}`, async () => {
      const authorization = await codeFor();
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => redeem(across ? instances()[i % 2]! : t.app, authorization)));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 200)) expect(a.body.error).toBe('invalid_grant');
      expect(await workingAccessTokens(answers)).toBeLessThanOrEqual(1);
    });

    it(`one refresh token used 10 times at once leaves one live refresh token, not 10 branches, ${where}`, async () => {
      const authorization = await codeFor();
      const issued = await redeem(t.app, authorization);
      expect(issued.status).toBe(200);
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          refresh(across ? instances()[i % 2]! : t.app, authorization.clientId, issued.body.refresh_token as string),
        ),
      );
      const issuedTokens = answers.filter((a) => a.status === 200).map((a) => a.body.refresh_token as string);
      expect(issuedTokens.length).toBeGreaterThanOrEqual(1);
      // Exactly one of the refresh tokens handed out still works; the others were superseded
      // (a retry within the grace window takes the place of the token before it).
      const outcomes = [];
      for (const rt of issuedTokens) outcomes.push(await refresh(t.app, authorization.clientId, rt));
      expect(outcomes.filter((o) => o.status === 200)).toHaveLength(1);
      // …and the connection was not revoked by the race: the survivor goes on refreshing.
      const survivor = outcomes.find((o) => o.status === 200)!;
      expect((await refresh(t.app, authorization.clientId, survivor.body.refresh_token)).status).toBe(200);
      const rows = await t.database.db.prisma.oAuthRecord.count({
        where: { kind: 'RefreshToken', consumedAt: null, grantId: { not: null }, accountId: { not: null } },
      });
      expect(rows).toBeGreaterThanOrEqual(1);
    });
  }

  it('an access token written while its grant is revoked does not work', async () => {
    for (let round = 0; round < 5; round++) {
      const authorization = await codeFor();
      const issued = await redeem(t.app, authorization);
      const browser = createBrowser(t.app, ORIGIN);
      await toConsent(browser, authorizationUrl(ORIGIN, { client_id: authorization.clientId, resource: `${ORIGIN}/v1/mcp/${dep}` }), OWNER);
      const session = [...browser.jars.get(ORIGIN)!].map(([k, v]) => `${k}=${v}`).join('; ');
      const gql = (query: string) =>
        t.app.fetch(
          new Request(`${ORIGIN}/graphql`, {
            method: 'POST',
            headers: { cookie: session, origin: ORIGIN, 'content-type': 'application/json' },
            body: JSON.stringify({ query }),
          }),
        );
      const apps = ((await (await gql('{ connectedApps { connectedAppId clientId } }')).json()) as any).data.connectedApps as {
        connectedAppId: string;
        clientId: string;
      }[];
      const connectedAppId = apps.find((a) => a.clientId === authorization.clientId)!.connectedAppId;
      // Refreshes on both instances race the disconnection.
      const [, ...refreshed] = await Promise.all([
        gql(`mutation { disconnectApp(connectedAppId: "${connectedAppId}") { deleted } }`),
        ...Array.from({ length: 4 }, (_, i) => refresh(instances()[i % 2]!, authorization.clientId, issued.body.refresh_token as string)),
      ]);
      expect(await workingAccessTokens([issued, ...refreshed])).toBe(0);
    }
  });
});
