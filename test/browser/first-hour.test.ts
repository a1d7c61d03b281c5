import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn, type RunningProcess, startBrowserStack, type BrowserStack } from './service.js';

/**
 * A newcomer's first hour, in Debian's Chromium against the built service: edits that survive
 * leaving the editor (a link, a reload, the back link of a new workflow), and the prompt that comes
 * before leaving with unsaved changes.
 */

let stack: BrowserStack;
let service: RunningProcess;
let chromium: { browser: Browser; close(): Promise<void> };
let erin: { context: BrowserContext; page: Page };

beforeAll(async () => {
  stack = await startBrowserStack();
  ({ service, chromium } = stack);
  erin = await signIn(chromium.browser, service.origin, 'erin@example.com');
}, 600_000);

afterAll(async () => {
  await stack?.stop();
});

const EDITED = `manifest_version: "1.0"
name: Triage
intent: Sort new issues by area and urgency
steps:
  - id: read
    name: Read the new issues
    action: planning_agent
  - id: label
    name: Label each one
    action: code_agent
    depends_on: [read]
`;

describe('the first hour in the dashboard', { timeout: 180_000 }, () => {
  it('fifteen sign-ins in a row from one address all land on the dashboard, on the sign-in pages’ own budget', async () => {
    const limits: string[] = [];
    for (let i = 0; i < 15; i += 1) {
      const context = await chromium.browser.newContext();
      context.on('response', (response) => {
        if (new URL(response.url()).pathname.startsWith('/sign-in')) limits.push(response.headers()['x-ratelimit-limit'] ?? 'none');
      });
      const page = await context.newPage();
      await page.goto(`${service.origin}/`);
      await page.waitForURL(/\/sign-in\?return=/);
      await page.getByLabel('E-mail address').fill(`newcomer-${i}@example.com`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();
      await context.close();
    }
    // The page and its form, fifteen times: thirty requests, which the address's API budget (30 a
    // minute on the free plan) could not have carried after the first page loads.
    expect(limits.length).toBeGreaterThanOrEqual(30);
    expect(new Set(limits)).toEqual(new Set(['120']));
  });

  it('a new workflow: leaving by "← Workflows" asks first; declining stays, accepting leaves; coming back restores the edits', async () => {
    const page = erin.page;
    await page.goto(`${service.origin}/workflows/new`);
    const editor = page.getByLabel('Manifest (YAML or JSON)');
    await editor.waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Issue triage');
    await editor.fill(EDITED);

    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByRole('link', { name: '← Workflows' }).click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toContain('unsaved changes');
    expect(new URL(page.url()).pathname).toBe('/workflows/new');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('link', { name: '← Workflows' }).click();
    await page.waitForURL(/\/workflows$/);

    await page.goto(`${service.origin}/workflows/new`);
    await page.getByText('Your unsaved changes from').waitFor();
    await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe('Issue triage');
    await expect(page.getByLabel('Manifest (YAML or JSON)').innerText()).resolves.toContain('Sort new issues by area and urgency');

    // Saving ends the draft: the next new workflow starts from the starter manifest.
    await page.getByRole('button', { name: 'Create workflow' }).click();
    await page.waitForURL(/\/workflows\/wf_/);
    await page.goto(`${service.origin}/workflows/new`);
    await page.getByLabel('Manifest (YAML or JSON)').waitFor();
    await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe('');
    expect(await page.getByText('Your unsaved changes from').count()).toBe(0);
  });

  it('an existing workflow: a reload asks first, and the edits come back after it; "Discard" returns to what was saved', async () => {
    const page = erin.page;
    await page.goto(`${service.origin}/workflows`);
    await page.getByRole('link', { name: 'Issue triage' }).first().click();
    await page.waitForURL(/\/workflows\/wf_/);
    const editor = page.getByLabel('Manifest (YAML or JSON)');
    await editor.waitFor();
    await page.getByLabel('Description').fill('Edited but not saved');

    // The browser's own prompt before a reload (beforeunload).
    const kinds: string[] = [];
    page.once('dialog', (dialog) => {
      kinds.push(dialog.type());
      void dialog.accept();
    });
    await page.reload();
    expect(kinds).toEqual(['beforeunload']);
    await page.getByText('Your unsaved changes from').waitFor();
    await expect(page.getByLabel('Description').inputValue()).resolves.toBe('Edited but not saved');

    await page.getByRole('button', { name: 'Discard the unsaved changes' }).click();
    await expect(page.getByLabel('Description').inputValue()).resolves.toBe('');
    // Nothing left to lose: leaving asks nothing.
    let promptedAgain = false;
    page.once('dialog', (dialog) => {
      promptedAgain = true;
      void dialog.accept();
    });
    await page.getByRole('link', { name: '← Workflows' }).click();
    await page.waitForURL(/\/workflows$/);
    expect(promptedAgain).toBe(false);
  });
});
