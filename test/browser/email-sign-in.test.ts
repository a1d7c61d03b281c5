import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testOAuthJwks } from '../helpers/app.js';
import { linkIn, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';
import { checkPage, DESKTOP, startBrowserStack, startService, type BrowserStack, type RunningProcess } from './service.js';

/**
 * E-mail sign-in end to end: the built service as an operator starts it with SMTP_URL, a real SMTP
 * server on loopback, and Chromium following the link in the message it received.
 */

let smtp: TestSmtpServer;
let stack: BrowserStack;
const clockDir = mkdtempSync(join(tmpdir(), 'wf-mail-clock-'));
// The service reads the offset in this file at every reading of its clock.
const offsetFile = join(clockDir, 'offset-ms');
const moveClock = (ms: number) => writeFileSync(offsetFile, String(ms));

beforeAll(async () => {
  moveClock(0);
  smtp = await startSmtpServer();
  stack = await startBrowserStack({ SMTP_URL: smtp.url, TEST_CLOCK_OFFSET_FILE: offsetFile });
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  await smtp?.close();
  rmSync(clockDir, { recursive: true, force: true });
});

/** Asks for a link on the sign-in page `page` is on, and returns it once the SMTP server has the message. */
async function askForLink(page: Page, email: string): Promise<string> {
  const before = smtp.messages.length;
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
  await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
  const mail = await smtp.waitForMessage(before + 1);
  expect(mail.to.map((a) => a.toLowerCase())).toEqual([email.toLowerCase()]);
  return linkIn(mail, new URL(page.url()).origin);
}

describe('e-mail sign-in', { timeout: 180_000 }, () => {
  it('sends a message whose link signs the person in, once', async () => {
    const origin = stack.service.origin;
    const context = await stack.chromium.browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    await page.waitForURL(/\/sign-in\?return=/);
    // The development page is gone once a real way in is configured.
    expect(await page.getByRole('button', { name: 'Sign in', exact: true }).count()).toBe(0);
    await checkPage(page, 'sign-in-email', 'sign-in page with e-mail');
    const link = await askForLink(page, 'mara@example.com');
    await checkPage(page, 'sign-in-email-sent', 'e-mail sent page');
    expect(link.startsWith(`${origin}/sign-in/email/confirm?token=`)).toBe(true);

    await page.goto(link);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();
    await page.goto(`${origin}/account`);
    await page.getByText('mara@example.com').first().waitFor();

    // The same link in another browser: refused, with a page saying why.
    const other = await stack.chromium.browser.newContext({ viewport: DESKTOP });
    const second = await other.newPage();
    await second.goto(link);
    await second.getByRole('heading', { name: 'This link has already been used' }).waitFor();
    await checkPage(second, 'sign-in-email-used', 'used link page');
    await second.goto(`${origin}/deployments`);
    await second.waitForURL(/\/sign-in\?return=/);
    await other.close();
    await context.close();
  });

  it('refuses a link older than 15 minutes (the service’s clock moved)', async () => {
    const origin = stack.service.origin;
    const context = await stack.chromium.browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    try {
      await page.goto(`${origin}/sign-in?return=%2Fworkflows`);
      const link = await askForLink(page, 'slow@example.com');
      moveClock(15 * 60 * 1000 + 1000);
      await page.goto(link);
      await page.getByRole('heading', { name: 'This link has expired' }).waitFor();
      // Opened before it expired and confirmed after: refused as well.
      moveClock(0);
      await page.goto(`${origin}/sign-in?return=%2Fworkflows`);
      const late = await askForLink(page, 'slow@example.com');
      await page.goto(late);
      moveClock(15 * 60 * 1000 + 1000);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'This link has expired' }).waitFor();
      await page.goto(`${origin}/workflows`);
      await page.waitForURL(/\/sign-in\?return=/);
    } finally {
      moveClock(0);
      await context.close();
    }
  });
});

describe('e-mail sign-in in production', { timeout: 180_000 }, () => {
  let service: RunningProcess | null = null;
  afterAll(async () => {
    await service?.stop();
  });

  it('works with NODE_ENV=production and SMTP_URL as the only way in', async () => {
    // The build is the first describe's; the database is PGlite under the service's own data directory.
    service = await startService(
      {
        NODE_ENV: 'production',
        SMTP_URL: smtp.url,
        MCP_SESSION_SECRET: 'a'.repeat(40),
        OAUTH_JWKS: testOAuthJwks(),
      },
      null,
    );
    const origin = service.origin;
    const context = await stack.chromium.browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    await page.waitForURL(/\/sign-in\?return=/);
    const link = await askForLink(page, 'prod@example.com');
    await page.goto(link);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();
    // The message named the production instance's own origin and nothing else.
    expect(new URL(link).origin).toBe(origin);
    await context.close();
  });
});
