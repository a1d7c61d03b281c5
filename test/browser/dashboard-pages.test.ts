import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPage, signIn, type RunningProcess, startBrowserStack, type BrowserStack } from './service.js';

/**
 * The dashboard's pages beyond the main journey, in Debian's Chromium against the built service:
 * a page whose code fails to load, unknown pages, the manifest editor (checked in the page, marks,
 * completion), every library and review action, a marketplace page before subscribing, GraphiQL
 * with nothing from other hosts. On PGlite, or on PostgreSQL when DATABASE_URL is set.
 */

const MANIFEST = `manifest_version: "1.0"
name: Release notes
intent: Collect merged changes and write the release notes
steps:
  - id: collect
    name: Collect merged changes
    action: github_integration
    parameters:
      since: last_tag
  - id: draft
    name: Draft the notes
    action: docs_agent
    depends_on: [collect]
  - id: review
    name: Review the notes
    action: review_agent
    depends_on: [draft]
`;

let stack: BrowserStack;
let service: RunningProcess;
let chromium: { browser: Browser; close(): Promise<void> };
let carol: { context: BrowserContext; page: Page };
let dave: { context: BrowserContext; page: Page };
let workflowId = '';

beforeAll(async () => {
  stack = await startBrowserStack();
  ({ service, chromium } = stack);
  carol = await signIn(chromium.browser, service.origin, 'carol@example.com');
  dave = await signIn(chromium.browser, service.origin, 'dave@example.com');
}, 600_000);

afterAll(async () => {
  await stack?.stop();
});

describe('the dashboard’s pages', { timeout: 120_000 }, () => {
  it(
    'writes a manifest in the editor: checked in the page without a request, problems marked in place, completion from the schema',
    { timeout: 240_000 },
    async () => {
      const page = carol.page;
      await page.goto(`${service.origin}/workflows/new`);
      const editor = page.getByLabel('Manifest (YAML or JSON)');
      await editor.waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Release notes');
      await page.getByLabel('Description').fill('Writes release notes from merged changes');

      const graphqlRequests: string[] = [];
      page.on('request', (r) => {
        if (r.url().endsWith('/graphql')) graphqlRequests.push(r.postData() ?? '');
      });
      // Completion: an action from the schema's list, a step id in depends_on, a key of a step.
      await editor.fill(MANIFEST.replace('    action: review_agent\n    depends_on: [draft]\n', ''));
      await editor.press('Control+End');
      await editor.pressSequentially('    action: revi', { delay: 20 });
      await editor.press('Control+Space');
      const options = page.getByRole('listbox');
      await options.getByRole('option', { name: /review_agent/ }).click();
      await editor.press('Enter');
      await editor.pressSequentially('    depends_on: [dr', { delay: 20 });
      await editor.press('Control+Space');
      await options.getByRole('option', { name: /^draft/ }).click();
      await editor.press('End');
      await editor.press('Enter');
      await editor.pressSequentially('    retr', { delay: 20 });
      await editor.press('Control+Space');
      await options.getByRole('option', { name: /^retry/ }).waitFor();
      await editor.press('Escape');
      for (let i = 0; i < 4; i++) await editor.press('Backspace');
      const written = await editor.innerText();
      expect(written).toContain('action: review_agent');
      expect(written).toMatch(/depends_on: \[draft\]?/);

      // A broken manifest: the problem is listed with its path and marked where it is; the button says why it waits.
      await editor.fill(MANIFEST.replace('depends_on: [draft]', 'depends_on: [drafts]'));
      const problems = page.locator('#manifest-problems');
      // The check runs after a pause in typing: until it has, the panel may still list the last text's problems.
      await expect.poll(() => problems.innerText(), { timeout: 15_000 }).toContain('/steps/2/depends_on/0');
      expect(await problems.innerText()).toContain('1 problem in the manifest:');
      await expect.poll(() => page.locator('.cm-lintRange-error').allInnerTexts(), { timeout: 15_000 }).toEqual(['drafts']);
      await page.getByText('Fix the 1 problem in the manifest first.').waitFor();
      await checkPage(page, 'pages-workflow-editor-errors', 'workflow editor with errors');

      // 100 edits in two minutes, each after a pause longer than the old check's 300 ms: every one
      // checked in the page, none sent to the service.
      const started = Date.now();
      await editor.press('Control+End');
      for (let i = 0; i < 100; i++) {
        await editor.press(i % 2 === 0 ? '#' : 'Backspace');
        await page.waitForTimeout(400);
      }
      expect(Date.now() - started).toBeLessThan(120_000);
      await editor.fill(MANIFEST);
      await problems.getByText('The manifest is valid.').waitFor();
      expect(graphqlRequests, 'typing sent requests').toEqual([]);

      await page.getByText('Public (published in the marketplace)').click();
      await page.getByRole('button', { name: 'Create workflow' }).click();
      await page.waitForURL(/\/workflows\/wf_/);
      workflowId = /\/workflows\/(wf_\w+)/.exec(page.url())![1]!;
      // The owner's editor links to the listing and its reviews.
      await page.getByRole('link', { name: 'Its marketplace listing' }).waitFor();
      expect(await page.getByRole('link', { name: 'Its reviews' }).getAttribute('href')).toBe(`/marketplace/${workflowId}#reviews`);
      await checkPage(page, 'pages-workflow-edit', 'workflow page');
    },
  );

  it('shows a marketplace workflow before subscribing; subscribe, review, edit and delete the review, unsubscribe', async () => {
    const page = dave.page;
    // A public name first (Account page): reviews show it, never the e-mail address.
    await page.goto(`${service.origin}/account`);
    await page.getByLabel('Display name').fill('Dave Okafor');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByText('Shown as “Dave Okafor”.').waitFor();
    await page.goto(`${service.origin}/marketplace/${workflowId}`);
    await page.getByRole('heading', { name: 'Release notes', level: 1 }).waitFor();
    const what = page.getByRole('region', { name: 'What it does' });
    expect(await what.innerText()).toContain('github_integration');
    expect(await what.innerText()).toContain('docs_agent');
    expect(await what.innerText()).toContain('since');
    expect(await what.innerText()).toContain('3 steps');
    // The graph fits a phone: every step drawn inside a 390 px screen.
    await page.setViewportSize({ width: 390, height: 844 });
    const graph = page.getByRole('img', { name: 'Steps and their dependencies' });
    const box = (await graph.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await graph.locator('g text').allTextContents()).toEqual(expect.arrayContaining(['Collect merged changes', 'Draft the notes']));
    await page.setViewportSize({ width: 1280, height: 860 });
    expect(await page.locator('.hint', { hasText: 'version' }).first().innerText()).toContain('0 subscribers');

    await page.getByRole('button', { name: 'Subscribe', exact: true }).click();
    await page.getByText('In your library (subscribed).').waitFor();
    await page.getByText(/1 subscriber ·/).waitFor();
    // Too short: the button says why.
    await page.getByLabel('Your review').fill('Good');
    await page.getByText('A review needs at least 10 characters.').waitFor();
    await page.getByLabel('Your review').fill('Clear notes every release.');
    await page.getByRole('button', { name: 'Publish review' }).click();
    await page.getByText('Your review was published.').waitFor();
    await page.getByText(/from 1 review$/).waitFor();
    await page
      .getByRole('region', { name: 'Reviews' })
      .getByText(/Dave Okafor ·/)
      .waitFor();
    expect(await page.content()).not.toContain('dave@example.com</li>');
    await checkPage(page, 'pages-marketplace-workflow', 'marketplace workflow page');

    await page.getByRole('button', { name: 'Edit your review' }).click();
    await page.getByText('2 ★').click();
    await page.getByLabel('Your review').fill('Clear notes, but misses reverted changes.');
    await page.getByRole('button', { name: 'Save review' }).click();
    await page.getByText('Your review was updated.').waitFor();
    const reviews = page.locator('ul.reviews');
    await reviews.getByText('Clear notes, but misses reverted changes.').waitFor();
    expect(await reviews.getByText('Clear notes every release.').count()).toBe(0);

    await page.getByRole('button', { name: 'Delete your review' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete review' }).click();
    await page.getByText('Your review was deleted.').waitFor();
    await page.getByText('No reviews yet.').waitFor();

    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Unsubscribe' }).click();
    await page.getByText('Unsubscribed from “Release notes”.').waitFor();
    await page.getByRole('button', { name: 'Subscribe', exact: true }).waitFor();

    // From the library page too.
    await page.getByRole('button', { name: 'Subscribe', exact: true }).click();
    await page.getByText('In your library (subscribed).').waitFor();
    await page.goto(`${service.origin}/library`);
    // On failure, say what the page showed instead (an error notice, an empty library, a sign-in page).
    await page
      .getByRole('heading', { name: 'Release notes' })
      .waitFor()
      .catch(async (error: Error) => {
        throw new Error(`${error.message}\nthe page at ${page.url()} showed:\n${await page.locator('body').innerText()}`);
      });
    await checkPage(page, 'pages-library', 'library');
    await page.getByRole('button', { name: 'Unsubscribe: Release notes' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Unsubscribe' }).click();
    await page.getByText('“Release notes” left your library.').waitFor();
    await page.getByText('Your library is empty.').waitFor();
  });

  it('says "lost connection, retry" when a page’s code cannot be loaded, and the retry loads it', async () => {
    const page = carol.page;
    await page.goto(`${service.origin}/deployments`);
    await page.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();
    await page.route(/\/assets\/Account-[\w-]+\.js$/, (route) => route.abort('connectionreset'));
    await page.getByRole('link', { name: 'Account', exact: true }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Lost the connection to the service' });
    await alert.waitFor();
    expect(await page.locator('main').innerText()).toContain('Check your connection and retry');
    await checkPage(page, 'chunk-failure', 'a page whose code failed to load');
    await page.unroute(/\/assets\/Account-[\w-]+\.js$/);
    await alert.getByRole('button', { name: 'Retry' }).click();
    await page.getByRole('heading', { name: /^Plan:/ }).waitFor();
  });

  it('answers unknown pages, workflows and deployments with the dashboard’s own page, without a useless "Try again"', async () => {
    const page = carol.page;
    for (const [path, heading] of [
      ['/workflows/wf_doesnotexist', 'Workflow not found'],
      ['/deployments/dep_doesnotexist', 'Deployment not found'],
      ['/marketplace/wf_doesnotexist', 'Workflow not found'],
      ['/deployments/a/b', 'Page not found'],
    ] as const) {
      await page.goto(`${service.origin}${path}`);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
      await page.getByRole('link', { name: 'Your deployments' }).waitFor();
    }
    await checkPage(page, 'not-found', 'not-found page');
  });

  it('serves GraphiQL from the service alone, compressed, under a CSP, unframable; its docs load the schema', async () => {
    const head = await fetch(`${service.origin}/graphql`, { headers: { accept: 'text/html', 'accept-encoding': 'gzip' } });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-encoding')).toBe('gzip');
    expect(Number(head.headers.get('content-length'))).toBeLessThan(3 * 1024 * 1024);
    expect(head.headers.get('x-frame-options')).toBe('DENY');
    const csp = head.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/script-src 'sha256-[^']+'(;|$)/);
    await head.body?.cancel();
    // Signed in to the dashboard: GraphiQL's requests carry the session cookie, as the dashboard's do.
    const { context, page } = await signIn(chromium.browser, service.origin, 'graphiql@example.com');
    const refusedByPolicy: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refusedByPolicy.push(message.text());
    });
    const elsewhere: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(service.origin) || url.startsWith('blob:') || url.startsWith('data:')) return route.continue();
      elsewhere.push(url);
      return route.abort('blockedbyclient');
    });
    const failures: string[] = [];
    page.on('pageerror', (e) => failures.push(e.message));
    await page.goto(`${service.origin}/graphql`);
    await page.locator('.graphiql-container').first().waitFor({ timeout: 30_000 });
    await page.getByText('Workflow service — GraphQL').or(page.locator('.graphiql-query-editor')).first().waitFor();
    expect(elsewhere).toEqual([]);
    expect(failures.filter((m) => /not defined/.test(m))).toEqual([]);
    // Its own introspection query is allowed (it nests 15 levels; other operations stop at 10), so
    // the documentation explorer shows the schema.
    await page.getByRole('button', { name: /documentation explorer/i }).click();
    await page.getByText('Root Types').waitFor({ timeout: 30_000 });
    await page.getByRole('link', { name: 'Query' }).first().click();
    await page.getByText('workflows', { exact: false }).first().waitFor({ timeout: 10_000 });
    expect(refusedByPolicy).toEqual([]);
    await context.close();
  });
});
