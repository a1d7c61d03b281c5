import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { authorize, createBrowser, exchangeCode, OAUTH_ENV, OAUTH_ORIGIN as ORIGIN, ownerWithDeployments } from '../helpers/oauth.js';
import { userIdOf } from '../helpers/seed.js';
import { serviceTestWith } from '../helpers/service-test.js';

/**
 * An OAuth connection granted (the consent page answered "allow") is written in the person's own
 * audit log as `oauth_connection.granted` (docs/teams.md, "Audit log"); a denied one writes nothing.
 */
const OWNER = 'granting@example.com';

/** The owner's token and their one deployment. */
const test = serviceTestWith(OAUTH_ENV).extend<{ granting: { token: string; dep: string } }>({
  granting: [
    async ({ service: t }, use) => {
      const {
        token,
        deploymentIds: [dep],
      } = await ownerWithDeployments(t, OWNER, ['Granted'], { name: 'Granted pipeline' });
      await use({ token, dep });
    },
    { scope: 'file' },
  ],
});

describe('OAuth connections in the personal audit log', () => {
  const grants = async (t: TestApp, token: string) => {
    const log = await t.call('GET', '/v1/users/me/audit-log', { token });
    expect(log.status, log.text).toBe(200);
    return (log.body.data as { action: string; targetType: string; targetId: string; actorUserId: string; details: any }[]).filter(
      (e) => e.action === 'oauth_connection.granted',
    );
  };

  test('writes oauth_connection.granted with the connected app, the client and the endpoint; a denial writes nothing', async ({
    service: t,
    granting: { token, dep },
  }) => {
    const resource = `${ORIGIN}/v1/mcp/${dep}`;
    const denied = await authorize(t.app, createBrowser(t.app, ORIGIN), ORIGIN, { resource, email: OWNER, choice: 'deny' });
    expect(denied.code).toBeNull();
    expect(await grants(t, token)).toEqual([]);

    const allowed = await authorize(t.app, createBrowser(t.app, ORIGIN), ORIGIN, { resource, email: OWNER });
    expect(allowed.code).toBeTruthy();
    const entries = await grants(t, token);
    expect(entries).toHaveLength(1);
    expect((await exchangeCode(t.app, ORIGIN, allowed, { resource })).status).toBe(200);
    const apps = await t.call('GET', '/v1/connected-apps', { token });
    const app = apps.body.data.find((a: { clientId: string }) => a.clientId === allowed.clientId);
    expect(entries[0]).toMatchObject({
      actorUserId: await userIdOf(t, token),
      targetType: 'connected_app',
      targetId: app.connectedAppId,
      details: { clientId: allowed.clientId, resource },
    });
  });
});
