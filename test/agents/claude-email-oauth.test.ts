import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP } from '../browser/service.js';
import { linkIn, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';
import { AgentHome } from './clients.js';
import { type EgressProxy } from './proxy.js';
import { type AgentDeployment, type AgentService } from './service.js';
import { allowClaudeLogin, claudeLogin, startClaudeLoginStack, type ClaudeLoginStack } from './claude-login.js';

/**
 * The real Claude Code CLI's OAuth authorization (`claude mcp login`) completed through e-mail
 * sign-in: the service has SMTP_URL, so the authorization server's sign-in is the sign-in page with
 * its e-mail form; the link arrives at a real SMTP server on loopback and Chromium follows it.
 */

const OWNER = 'owner@example.com';

let smtp: TestSmtpServer;
let stack: ClaudeLoginStack;
let service: AgentService;
let proxy: EgressProxy;
let deployment: AgentDeployment;
let chromium: ClaudeLoginStack['chromium'];
let home: AgentHome;

beforeAll(async () => {
  smtp = await startSmtpServer();
  stack = await startClaudeLoginStack({ env: { SMTP_URL: smtp.url } });
  ({ service, proxy, deployment, chromium } = stack);
  // The owner also signs in by e-mail: the address joins the account as a way in (as adding it on
  // the Account page would).
  const owner = await service.t.app.services.users.resolveViewer({
    issuer: 'urn:workflow-service:dev',
    subject: `dev|${OWNER}`,
    email: OWNER,
    name: null,
    issuedAt: Math.floor(Date.now() / 1000),
  });
  await service.t.app.services.signInIdentities.link(owner.userId, {
    issuer: 'urn:workflow-service:email',
    subject: OWNER,
    email: OWNER,
    emailVerified: true,
    method: 'email',
    name: null,
  });
}, 600_000);

afterAll(async () => {
  await home?.close();
  await stack?.close();
  await smtp?.close();
});

describe('Claude Code signs in with OAuth through an e-mail link', { timeout: 240_000 }, () => {
  it('`claude mcp login --no-browser`, the e-mail link and consent in Chromium: ✔ Connected', async () => {
    home = new AgentHome({ proxy: proxy.url });
    const add = await home.run('claude', ['mcp', 'add', '--transport', 'http', 'workflows', deployment.endpoint]);
    expect(add.code, add.output).toBe(0);

    const { login, authorization } = await claudeLogin(home);
    const context = await chromium.browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const explain = async (step: string) =>
      `${step}\nbrowser at ${page.url()}:\n${(await page.content().catch(() => '')).slice(0, 2000)}\nCLI:\n${login.text()}`;
    try {
      await page.goto(authorization.href);
      // The sign-in page names the application asking, and offers the e-mail form.
      await page.getByText('Claude Code').first().waitFor({ timeout: 30_000 });
      await page.getByLabel('E-mail address').fill(OWNER);
      await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
      await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
      const link = linkIn(await smtp.waitForMessage(1), service.origin);
      await page.goto(link);
      await page.getByRole('button', { name: 'Sign in' }).click();
      // Back at the authorization: the consent page, then the CLI's loopback callback.
      await page.getByRole('button', { name: 'Allow' }).waitFor({ timeout: 30_000 });
      expect(await page.content()).toContain(deployment.endpoint);
      await allowClaudeLogin(page, login);
    } catch (error) {
      throw new Error(await explain(String(error)));
    }
    await context.close();
    const connected = await home.run('claude', ['mcp', 'list']);
    expect(connected.output).toMatch(/workflows: .* \(HTTP\) - ✔ Connected/);
    expect(proxy.refused).toEqual([]);
  });
});
