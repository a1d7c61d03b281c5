import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPage, pageGraphql, PHONE, signIn, startBrowserStack, type BrowserStack } from './service.js';

/**
 * Rough edges a newcomer met, in Debian's Chromium against the built service: a workflow forked
 * once (never offered Fork again, and warned before deleting the fork), a search without results,
 * and an expired API key shown as expired on the Account page.
 */

const MANIFEST = {
  manifest_version: '1.0',
  name: 'Fork once',
  intent: 'Check that a workflow is forked once per user',
  steps: [{ id: 'review', name: 'Review', action: 'review_agent' }],
};

let stack: BrowserStack;
let erin: { context: BrowserContext; page: Page };
let frank: { context: BrowserContext; page: Page };

beforeAll(async () => {
  stack = await startBrowserStack();
  erin = await signIn(stack.chromium.browser, stack.service.origin, 'erin-forks@example.com');
  frank = await signIn(stack.chromium.browser, stack.service.origin, 'frank-forks@example.com');
}, 600_000);

afterAll(async () => {
  await stack?.stop();
});

describe('rough edges of the first hour', { timeout: 180_000 }, () => {
  it('a workflow forked once is not offered for Fork again, before or after the fork is deleted', async () => {
    const origin = stack.service.origin;
    const made = await pageGraphql(
      erin.page,
      'mutation($m: JSON!) { createWorkflow(name: "Fork once", manifest: $m, visibility: public) { workflowId } }',
      { m: MANIFEST },
    );
    const workflowId: string = made.data.createWorkflow.workflowId;

    const page = frank.page;
    await page.goto(`${origin}/marketplace/${workflowId}`);
    await page.getByRole('heading', { name: 'Fork once', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Fork', exact: true }).click();
    await page.waitForURL(/\/workflows\/wf_/);
    const forkId = /\/workflows\/(wf_\w+)/.exec(page.url())![1]!;

    await page.goto(`${origin}/marketplace/${workflowId}`);
    await page.getByText('You forked this workflow').waitFor();
    expect(await page.getByRole('button', { name: 'Fork', exact: true }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'open your fork' }).getAttribute('href')).toBe(`/workflows/${forkId}`);

    // The fork's delete dialog warns that it cannot be made again.
    await page.goto(`${origin}/workflows/${forkId}`);
    await page.getByRole('button', { name: 'Delete workflow' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByText('you cannot fork the original again').waitFor();
    await dialog.getByRole('button', { name: 'Delete for good' }).click();
    await page.waitForURL(/\/workflows$/);

    await page.goto(`${origin}/marketplace/${workflowId}`);
    await page.getByText('You forked this workflow before and deleted the fork').waitFor();
    expect(await page.getByRole('button', { name: 'Fork', exact: true }).count()).toBe(0);
    // Nor is a fork suggested to review it.
    await page.getByText('Subscribe to review this workflow.').waitFor();
    expect(await page.getByText('Subscribe or fork to review').count()).toBe(0);
    await checkPage(page, 'marketplace-workflow-forked-before', 'a listing forked before');

    // The refusal itself says why (a second tab that still shows Fork).
    const again = await pageGraphql(page, 'mutation($id: String!) { forkWorkflow(workflowId: $id) { workflowId } }', { id: workflowId });
    expect(again.errors[0].message).toContain('a workflow can be forked once per user');
  });

  it('a marketplace search that finds nothing says so, with what to try', async () => {
    const page = frank.page;
    await page.goto(`${stack.service.origin}/marketplace`);
    await page.getByLabel('Search public workflows').fill('zebra quartz');
    const empty = page.getByText('No public workflow matches “zebra quartz”.');
    await empty.waitFor();
    expect(await empty.innerText()).toContain('clear the search to browse');
    expect(await page.getByText('Nothing here yet.').count()).toBe(0);
    await checkPage(page, 'marketplace-no-match', 'a marketplace search without results');
  });

  it('the API reference fits a 390 px screen without scrolling sideways', async () => {
    const context = await stack.chromium.browser.newContext({ viewport: PHONE });
    try {
      const page = await context.newPage();
      await page.goto(`${stack.service.origin}/v1/reference`);
      await page.locator('.route').first().waitFor();
      // Every body and response opened: the widest content there is.
      await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, 'the reference is wider than a 390 px screen').toBeLessThanOrEqual(1);
    } finally {
      await context.close();
    }
  });

  it('the new-deployment form says the plan’s room first, and at the limit what to do instead; no upgrade without billing', async () => {
    const george = await signIn(stack.chromium.browser, stack.service.origin, 'george-limit@example.com');
    const page = george.page;
    try {
      const made = await pageGraphql(page, 'mutation($m: JSON!) { createWorkflow(name: "Limited", manifest: $m) { workflowId } }', {
        m: { ...MANIFEST, name: 'Limited' },
      });
      const workflowId: string = made.data.createWorkflow.workflowId;
      await page.goto(`${stack.service.origin}/deployments`);
      await page.getByText('The free plan allows 1 deployment; 0 are used.').waitFor();
      await page.getByRole('button', { name: 'Create deployment' }).waitFor();

      await pageGraphql(page, 'mutation($ids: [String!]!) { createDeployment(name: "Only one", workflowIds: $ids) { deploymentId } }', {
        ids: [workflowId],
      });
      await page.goto(`${stack.service.origin}/deployments`);
      await page.getByText('Your plan’s limit of deployments is reached').waitFor();
      expect(await page.getByText('The free plan allows 1 deployment and 1 is used: delete a deployment first').count()).toBe(1);
      // This service has no billing configured: no upgrade is offered, and it says why.
      expect(await page.getByText('Billing is not set up on this service').count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Create deployment' }).count()).toBe(0);
      await checkPage(page, 'deployments-at-limit', 'the Deployments page at the plan’s limit');

      await page.goto(`${stack.service.origin}/account`);
      await page.getByText('Billing is not set up on this service, so plans cannot be bought here').waitFor();
      expect(await page.getByRole('button', { name: 'Pro, monthly' }).count()).toBe(0);
    } finally {
      await george.context.close();
    }
  });

  it('an expired API key is marked expired on the Account page', async () => {
    const page = erin.page;
    const soon = new Date(Date.now() + 2_000).toISOString();
    const made = await pageGraphql(
      page,
      'mutation($at: String) { createApiKey(name: "Short-lived", scope: "mcp", expiresAt: $at) { keyId } }',
      {
        at: soon,
      },
    );
    expect(made.data.createApiKey.keyId).toMatch(/^key_/);
    await pageGraphql(page, 'mutation { createApiKey(name: "Lasting", scope: "mcp") { keyId } }', {});
    await page.waitForTimeout(Math.max(0, Date.parse(soon) - Date.now()) + 500);

    await page.goto(`${stack.service.origin}/account`);
    const expired = page.getByRole('row', { name: /Short-lived/ });
    await expired.getByText('expired', { exact: true }).waitFor();
    const lasting = page.getByRole('row', { name: /Lasting/ });
    await lasting.waitFor();
    expect(await lasting.getByText('expired', { exact: true }).count()).toBe(0);
    await checkPage(page, 'account-expired-key', 'the Account page with an expired key');
  });
});
