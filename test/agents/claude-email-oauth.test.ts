import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, launchChromium } from '../browser/service.js';
import { linkIn, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';
import { AgentHome, ensureAgentClients } from './clients.js';
import { startEgressProxy, type EgressProxy } from './proxy.js';
import { seedDeployment, startAgentService, type AgentDeployment, type AgentService } from './service.js';

/**
 * The real Claude Code CLI's OAuth authorization (`claude mcp login`) completed through e-mail
 * sign-in: the service has SMTP_URL, so the authorization server's sign-in is the sign-in page with
 * its e-mail form; the link arrives at a real SMTP server on loopback and Chromium follows it.
 */

const OWNER = 'owner@example.com';

let smtp: TestSmtpServer;
let service: AgentService;
let proxy: EgressProxy;
let deployment: AgentDeployment;
let chromium: { browser: Browser; close(): Promise<void> };
let home: AgentHome;

beforeAll(async () => {
  await ensureAgentClients();
  smtp = await startSmtpServer();
  service = await startAgentService({ env: { SMTP_URL: smtp.url } });
  proxy = await startEgressProxy();
  deployment = await seedDeployment(service.t);
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
  chromium = await launchChromium();
}, 600_000);

afterAll(async () => {
  await home?.close();
  await chromium?.close();
  await proxy?.close();
  await service?.close();
  await smtp?.close();
});

describe('Claude Code signs in with OAuth through an e-mail link', { timeout: 240_000 }, () => {
  it('`claude mcp login --no-browser`, the e-mail link and consent in Chromium: ✔ Connected', async () => {
    home = new AgentHome({ proxy: proxy.url });
    const add = await home.run('claude', ['mcp', 'add', '--transport', 'http', 'workflows', deployment.endpoint]);
    expect(add.code, add.output).toBe(0);

    const login = home.runInTerminal(['claude', 'mcp', 'login', 'workflows', '--no-browser']);
    const [, printed] = await login.waitFor(/(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)/, 60_000);
    const context = await chromium.browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const explain = async (step: string) =>
      `${step}\nbrowser at ${page.url()}:\n${(await page.content().catch(() => '')).slice(0, 2000)}\nCLI:\n${login.text()}`;
    try {
      await page.goto(printed!);
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
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL(/^http:\/\/localhost:\d+\/callback\?/, { timeout: 30_000 });
      await login.waitFor(/success|authenticated/i, 60_000);
      expect(await login.exited(30_000)).toBe(0);
    } catch (error) {
      throw new Error(await explain(String(error)));
    }
    await context.close();
    const connected = await home.run('claude', ['mcp', 'list']);
    expect(connected.output).toMatch(/workflows: .* \(HTTP\) - ✔ Connected/);
    expect(proxy.refused).toEqual([]);
  });
});
