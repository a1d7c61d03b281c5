import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedWorkflow, userIdOf } from '../helpers/seed.js';
import { answerConsent, connectWithOAuth, createBrowser, MemoryOAuthProvider, toConsent } from '../helpers/oauth.js';

/**
 * One loopback form: with the default settings (no PUBLIC_BASE_URL, port 4000) the endpoint URL the
 * README and the dashboard print, http://127.0.0.1:4000/v1/mcp/<id>, works with the official SDK
 * client's OAuth flow, which compares it with the protected resource the service names.
 */
const ORIGIN = 'http://127.0.0.1:4000';
const OWNER = 'loopback-owner@example.com';

describe('the default base URL and the printed loopback form agree', () => {
  let t: TestApp;
  let deploymentId: string;
  beforeAll(async () => {
    t = await startTestApp({ env: { MCP_SESSION_SECRET: 'a-test-session-secret-of-at-least-32-characters' } });
    const token = await t.token(OWNER);
    const workflowId = await seedWorkflow(t, await userIdOf(t, token), { name: 'Loopback pipeline' });
    const created = await t.call('POST', '/v1/deployments', { token, body: { name: 'Loopback', workflowIds: [workflowId] } });
    deploymentId = created.body.data.deploymentId;
    expect(created.body.data.mcpEndpoint).toBe(`${ORIGIN}/v1/mcp/${deploymentId}`);
  });
  afterAll(async () => t?.close());

  it('the SDK client given http://127.0.0.1:4000/v1/mcp/<id> signs in through OAuth and lists tools', async () => {
    expect(t.config.publicBaseUrl).toBe(`${ORIGIN}/v1`);
    const endpoint = new URL(`${ORIGIN}/v1/mcp/${deploymentId}`);
    const provider = new MemoryOAuthProvider();
    const browser = createBrowser(t.app, ORIGIN);
    const { client } = await connectWithOAuth(t.app, endpoint, provider, async (authorization) => {
      expect(authorization.searchParams.get('resource')).toBe(endpoint.href);
      return answerConsent(browser, await toConsent(browser, authorization.href, OWNER), 'confirm');
    });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });
});
