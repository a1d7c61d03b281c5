import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPage, pageGraphql, signIn, startBrowserStack, type BrowserStack } from './service.js';

/**
 * The publishing check and updates in the dashboard, in Debian's Chromium against the built
 * service: a subscriber sees the check on the marketplace listing and page, and on their library
 * page an update with the check and the manifest diff, which they accept.
 */

let stack: BrowserStack;
let author: { context: BrowserContext; page: Page };
let subscriber: { context: BrowserContext; page: Page };

/** A GraphQL operation from the page's session (the dashboard's cookie). */
async function call(page: Page, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const body = await pageGraphql(page, query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

function manifest(reviewName: string) {
  return {
    manifest_version: '1.0',
    name: 'Checked review',
    intent: 'Plan, change and review',
    steps: [
      { id: 'plan', name: 'Plan the change', action: 'planning_agent' },
      { id: 'review', name: reviewName, action: 'review_agent', depends_on: ['plan'] },
    ],
  };
}

beforeAll(async () => {
  stack = await startBrowserStack();
  author = await signIn(stack.chromium.browser, stack.service.origin, 'trust-author@example.com');
  subscriber = await signIn(stack.chromium.browser, stack.service.origin, 'trust-subscriber@example.com');
}, 600_000);

afterAll(async () => {
  await stack?.stop();
});

describe('trust in the dashboard', { timeout: 180_000 }, () => {
  it('shows the check on the listing, then an update with its check and diff in the library, and accepts it', async () => {
    const origin = stack.service.origin;
    const made = await call(
      author.page,
      'mutation($m: JSON!) { createWorkflow(name: "Checked review", description: "The security step looks at ~/.ssh permissions", manifest: $m, visibility: public, category: "trust") { workflowId } }',
      { m: manifest('Review') },
    );
    const workflowId = made.createWorkflow.workflowId as string;
    await call(subscriber.page, 'mutation($id: String!) { addToLibrary(workflowId: $id, autoUpdate: false) { workflowId } }', {
      id: workflowId,
    });

    const page = subscriber.page;
    await page.goto(`${origin}/marketplace`);
    await page.getByRole('link', { name: 'Checked review' }).first().waitFor();
    await page.getByLabel('Publishing check of Checked review').first().getByText('checked: 1 warning').waitFor();

    await page.goto(`${origin}/marketplace/${workflowId}`);
    await page.getByText('checked: 1 warning').waitFor();
    await page.getByText('Warning', { exact: true }).waitFor();
    await checkPage(page, 'trust-marketplace-workflow', 'marketplace page with a warning');

    // A new version: the pinned subscriber sees it waiting, with what changed.
    await call(author.page, 'mutation($id: String!, $m: JSON!) { updateWorkflow(workflowId: $id, manifest: $m) { currentVersion } }', {
      id: workflowId,
      m: manifest('Review twice'),
    });
    await page.goto(`${origin}/library`);
    const update = page.getByRole('region', { name: 'Update available: Checked review' });
    await update.getByRole('heading', { name: 'Update available: 1.0.0 → 1.0.1' }).waitFor();
    await update.getByText('checked: 1 warning').waitFor();
    await update.getByText('What changed (manifest.steps[review].name)').click();
    await update.getByLabel('Changes from 1.0.0 to 1.0.1').getByText('Review twice').waitFor();
    await checkPage(page, 'trust-library-update', 'library with an update');

    await update.getByRole('button', { name: 'Accept version 1.0.1' }).click();
    await page.getByText('“Checked review” now uses version 1.0.1.').waitFor();
    await update.waitFor({ state: 'detached' });
    const entry = await call(page, '{ library(limit: 100) { data { workflowId workflowVersion update { latestVersion } } } }');
    expect(entry.library.data.find((e: any) => e.workflowId === workflowId)).toEqual({
      workflowId,
      workflowVersion: '1.0.1',
      update: null,
    });
  });
});
