import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRICES, signature, startFakeStripe, stripeEvent, subscriptionObject, type FakeStripe } from '../helpers/fake-stripe.js';
import { linkIn, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';
import { checkPage, DESKTOP, pageGraphql, startBrowserStack, type BrowserStack } from './service.js';

/**
 * Teams in the dashboard, in Debian's Chromium against the built service with mail: an owner makes a
 * team and invites by e-mail; the invited person follows the mailed link, signs in and joins; the
 * owner changes their role and reads the audit log, filtered, with its CSV link.
 */

let smtp: TestSmtpServer;
let stripe: FakeStripe;
let stack: BrowserStack;

beforeAll(async () => {
  smtp = await startSmtpServer();
  stripe = await startFakeStripe();
  stack = await startBrowserStack({ SMTP_URL: smtp.url, ...stripe.env() });
}, 600_000);

afterAll(async () => {
  await stack?.stop();
  await smtp?.close();
  await stripe?.close();
});

/** A GraphQL operation from the page's session (the dashboard's cookie): its data, refusing errors. */
async function call(page: Page, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const body = await pageGraphql(page, query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

/**
 * Puts the signed-in person on the team plan, as Stripe would after a checkout: a customer made by
 * the checkout, then the subscription's webhook (a team of more than one needs the team plan).
 */
async function subscribeToTeamPlan(page: Page): Promise<void> {
  const origin = stack.service.origin;
  await call(
    page,
    'mutation($u: String!) { createCheckoutSession(priceId: team_monthly, successUrl: $u, cancelUrl: $u) { checkoutUrl } }',
    {
      u: `${origin}/account`,
    },
  );
  const { me } = await call(page, 'query { me { userId billing { customerId } } }');
  const subscriptionId = `sub_${me.userId}`;
  stripe.subscriptions.set(subscriptionId, { id: subscriptionId, customer: me.billing.customerId, status: 'active' });
  const payload = stripeEvent(
    'customer.subscription.created',
    subscriptionObject({ id: subscriptionId, customer: me.billing.customerId, price: PRICES.team_monthly }),
  );
  const res = await fetch(`${origin}/v1/billing/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature(payload) },
    body: payload,
  });
  expect(res.status, await res.text()).toBe(200);
}

/** Signs in on the sign-in page `page` is on with the link mailed to `email`; lands where the sign-in was asked from. */
async function signInByMail(page: Page, email: string): Promise<void> {
  const before = smtp.messages.length;
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
  const mail = await smtp.waitForMessage(before + 1);
  await page.goto(linkIn(mail, stack.service.origin));
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('teams in the dashboard', { timeout: 120_000 }, () => {
  it('creates a team, invites by e-mail, the invited person joins, a role changes, the log is filtered', async () => {
    const origin = stack.service.origin;
    const owner = await (await stack.chromium.browser.newContext({ viewport: DESKTOP })).newPage();
    await owner.goto(`${origin}/teams`);
    await signInByMail(owner, 'olga@example.com');
    await owner.getByRole('heading', { name: 'Teams', level: 1 }).waitFor();
    await subscribeToTeamPlan(owner);
    // A name with markup is shown as the text it is.
    await owner.getByLabel('Team name').fill('Platform <b>ops</b>');
    await owner.getByRole('button', { name: 'Create team' }).click();
    await owner.getByRole('heading', { name: 'Platform <b>ops</b>', level: 1 }).waitFor();
    const teamUrl = owner.url();

    const sent = smtp.messages.length;
    await owner.getByLabel('E-mail address').fill('ben@example.com');
    await owner.getByRole('button', { name: 'Send invitation' }).click();
    await owner.getByText('Invitation for ben@example.com made').waitFor();
    await owner.getByText('ben@example.com as member').waitFor();
    const invitation = linkIn(await smtp.waitForMessage(sent + 1), origin);

    // Ben follows the mailed link: sign-in first, then back to the invitation, which he confirms.
    const ben = await (await stack.chromium.browser.newContext({ viewport: DESKTOP })).newPage();
    await ben.goto(invitation);
    await signInByMail(ben, 'ben@example.com');
    await ben.getByRole('button', { name: 'Join the team' }).click();
    await ben.getByRole('heading', { name: 'You joined the team' }).waitFor();
    // A member sees the members, not the audit log or its CSV.
    await ben.goto(teamUrl);
    await ben.getByRole('heading', { name: 'Members' }).waitFor();
    expect(await ben.getByRole('link', { name: 'Download CSV' }).count()).toBe(0);
    await checkPage(ben, 'team-member', 'team page of a member');

    await owner.reload();
    // The log is read once the change is made: the filter's query must not overtake the mutation.
    const changed = owner.waitForResponse(
      (r) => r.url().endsWith('/graphql') && (r.request().postData() ?? '').includes('UpdateTeamMember'),
    );
    await owner.getByLabel('Role of ben@example.com').selectOption('admin');
    expect((await changed).ok()).toBe(true);
    await owner.getByLabel('Action', { exact: true }).selectOption('member.role_changed');
    await owner.getByRole('button', { name: 'Apply filters' }).click();
    const log = owner.getByRole('table', { name: "The team's audit log" });
    await log.getByRole('rowheader', { name: 'member.role_changed' }).waitFor();
    expect(await log.getByRole('row').count()).toBe(2);
    await expect.poll(() => owner.getByLabel('Role of ben@example.com').inputValue()).toBe('admin');
    // The CSV holds what the filter shows.
    const [download] = await Promise.all([owner.waitForEvent('download'), owner.getByRole('link', { name: 'Download CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8')
      .trimEnd()
      .split('\r\n');
    expect(csv).toHaveLength(2);
    expect(csv[1]).toContain('"member.role_changed"');
    await checkPage(owner, 'team-owner', 'team page of an owner with a filtered audit log');

    await owner.goto(`${origin}/teams`);
    await owner.getByRole('link', { name: 'Platform <b>ops</b>' }).waitFor();
    await checkPage(owner, 'teams', 'teams page');

    // The personal log on the Account page: this browser's sign-in.
    await owner.goto(`${origin}/account`);
    await owner.getByLabel('Action', { exact: true }).selectOption('session.signed_in');
    await owner.getByRole('button', { name: 'Apply filters' }).click();
    await owner.getByRole('table', { name: 'Your security log' }).getByRole('rowheader', { name: 'session.signed_in' }).waitFor();
    await checkPage(owner, 'account-security-log', 'account page with the security log');
  });
});
