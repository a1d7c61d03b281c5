import { describe, expect } from 'vitest';
import { seedWorkflow, userIdOf } from '../helpers/seed.js';
import { answerConsent, connectWithOAuth, createBrowser, MemoryOAuthProvider, toConsent } from '../helpers/oauth.js';
import { serviceTestWith } from '../helpers/service-test.js';

/**
 * One loopback form: with the default settings (no PUBLIC_BASE_URL, port 4000) the endpoint URL the
 * README and the dashboard print, http://127.0.0.1:4000/v1/mcp/<id>, works with the official SDK
 * client's OAuth flow, which compares it with the protected resource the service names.
 */
const ORIGIN = 'http://127.0.0.1:4000';
const OWNER = 'loopback-owner@example.com';
const serviceTest = serviceTestWith({ MCP_SESSION_SECRET: 'a-test-session-secret-of-at-least-32-characters' });

describe('the default base URL and the printed loopback form agree', () => {
  serviceTest('the SDK client given http://127.0.0.1:4000/v1/mcp/<id> signs in through OAuth and lists tools', async ({ service: t }) => {
    const token = await t.token(OWNER);
    const workflowId = await seedWorkflow(t, await userIdOf(t, token), { name: 'Loopback pipeline' });
    const created = await t.call('POST', '/v1/deployments', { token, body: { name: 'Loopback', workflowIds: [workflowId] } });
    const deploymentId = created.body.data.deploymentId;
    expect(created.body.data.mcpEndpoint).toBe(`${ORIGIN}/v1/mcp/${deploymentId}`);
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
