import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSignInProviders, type GitHubStandIn } from '../helpers/github-stand-in.js';
import { linkIn, type TestSmtpServer } from '../helpers/smtp.js';
import { checkPage, DESKTOP, startBrowserStack, type BrowserStack } from './service.js';

/**
 * GitHub sign-in end to end: the built service configured with a GitHub Enterprise stand-in on
 * loopback (GITHUB_URL), Chromium clicking "Sign in with GitHub" on the sign-in page.
 */

let providers: Awaited<ReturnType<typeof startSignInProviders>>;
let github: GitHubStandIn;
let smtp: TestSmtpServer;
let stack: BrowserStack;

beforeAll(async () => {
  providers = await startSignInProviders();
  ({ github, smtp } = providers);
  stack = await startBrowserStack(providers.env);
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  await providers?.close();
});

/** The signed-in user's id, as the dashboard reads it. */
async function userIdOf(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const res = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ me { userId } }' }),
    });
    return ((await res.json()) as { data: { me: { userId: string } } }).data.me.userId;
  });
}

async function newPage(): Promise<Page> {
  const context = await stack.chromium.browser.newContext({ viewport: DESKTOP });
  return context.newPage();
}

async function withGitHub(page: Page): Promise<void> {
  await page.goto(`${stack.service.origin}/`);
  await page.waitForURL(/\/sign-in\?return=/);
  await page.getByRole('link', { name: 'Sign in with GitHub' }).click();
}

async function withEmail(page: Page, email: string): Promise<void> {
  await page.goto(`${stack.service.origin}/`);
  await page.waitForURL(/\/sign-in\?return=/);
  const before = smtp.messages.length;
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
  await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
  await page.goto(linkIn(await smtp.waitForMessage(before + 1), stack.service.origin));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();
}

describe('GitHub sign-in', { timeout: 180_000 }, () => {
  it('lands signed in; GitHub saw the client id, a redirect URI on the service, state and the secret', async () => {
    github.account = { id: 7001, login: 'octo-lin', emails: [{ email: 'lin@example.com', primary: true, verified: true }] };
    const page = await newPage();
    await page.goto(`${stack.service.origin}/sign-in`);
    await checkPage(page, 'sign-in-github-email', 'sign-in page with GitHub and e-mail');
    await withGitHub(page);
    await page.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();
    const seen = github.authorizations.at(-1)!;
    expect(seen.clientId).toBe(github.clientId);
    expect(seen.redirectUri).toBe(`${stack.service.origin}/sign-in/github/callback`);
    expect(seen.state).toBeTruthy();
    expect(github.tokenRequests.at(-1)).toMatchObject({ clientId: github.clientId, clientSecret: github.clientSecret, accepted: true });
    await page.context().close();
  });

  it('signs the same verified address into the same account; an unverified one into another', async () => {
    const byEmail = await newPage();
    await withEmail(byEmail, 'sam@example.com');
    const owner = await userIdOf(byEmail);

    github.account = { id: 7002, login: 'sam-gh', emails: [{ email: 'sam@example.com', primary: true, verified: true }] };
    const verified = await newPage();
    await withGitHub(verified);
    await verified.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();
    expect(await userIdOf(verified)).toBe(owner);

    const byEmail2 = await newPage();
    await withEmail(byEmail2, 'uma@example.com');
    const owner2 = await userIdOf(byEmail2);
    github.account = { id: 7003, login: 'uma-gh', emails: [{ email: 'uma@example.com', primary: true, verified: false }] };
    const unverified = await newPage();
    await withGitHub(unverified);
    await unverified.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();
    expect(await userIdOf(unverified)).not.toBe(owner2);
    for (const page of [byEmail, verified, byEmail2, unverified]) await page.context().close();
  });

  it('shows a page for a state that is not this browser’s, and for GitHub refusing', async () => {
    const page = await newPage();
    await page.goto(`${stack.service.origin}/sign-in/github/callback?code=abc&state=forged`);
    await page.getByRole('heading', { name: 'This sign-in has expired or did not start here' }).waitFor();
    await checkPage(page, 'sign-in-github-state', 'state mismatch page');

    github.account = null;
    await withGitHub(page);
    await page.getByRole('heading', { name: 'GitHub did not sign you in' }).waitFor();
    await page.getByText('denied your application access').waitFor();
    await page.context().close();
  });

  it('shows the ways in on the Account page, adds GitHub and removes the e-mail link', async () => {
    const page = await newPage();
    await withEmail(page, 'noor@example.com');
    const owner = await userIdOf(page);
    await page.goto(`${stack.service.origin}/account`);
    const section = page.getByRole('region', { name: 'Ways to sign in' });
    await section.getByText('noor@example.com').waitFor();
    await section.getByText('the only way in').waitFor();
    github.account = { id: 7010, login: 'noor-gh', emails: [] };
    await section.getByRole('link', { name: 'Add GitHub' }).click();
    await page.waitForURL(`${stack.service.origin}/account`);
    await section.getByText('noor-gh').waitFor();
    await checkPage(page, 'account-sign-in-methods', 'account page with two ways in');
    await section.getByRole('button', { name: 'Remove E-mail link (noor@example.com)' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove' }).click();
    await section.getByText('E-mail link (noor@example.com) removed.').waitFor();
    await section.getByText('the only way in').waitFor();
    // GitHub alone now opens the account.
    const again = await newPage();
    await withGitHub(again);
    await again.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();
    expect(await userIdOf(again)).toBe(owner);
    await again.context().close();
    await page.context().close();
  });
});
