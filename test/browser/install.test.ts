import { describe, expect, it } from 'vitest';
import { checkPage, DESKTOP, fileBrowserStack, pageGraphql } from './service.js';

/**
 * A deployment's install page in Debian's Chromium, against the built service: every client's
 * form, OAuth first, a key made on the page for this deployment and filled into the forms (the
 * Cursor deeplink decoded, the key-bound catalog fetched with it), and the checks of every page
 * (checkPage): axe-core with no serious or critical violation, and every action inside the screen,
 * at 1280 and 390 px wide. "Your client" shows the chosen client first and is remembered; without a
 * choice, jump links lead to each client.
 */

const stack = fileBrowserStack({ timeoutMs: 300_000 });

describe('the install page in a browser', { timeout: 180_000 }, () => {
  it('shows every client OAuth first, makes a key for the deployment and fills it in, at 1280 and 390 px', async () => {
    const context = await stack.chromium.browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${stack.service.origin}/`);
    await page.waitForURL(/\/sign-in\?return=/);
    await page.getByLabel('E-mail address').fill('installer@example.com');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();

    const manifest = {
      manifest_version: '1.0',
      name: 'Review',
      intent: 'Review a change',
      steps: [{ id: 'review', name: 'Review the change', action: 'review_agent' }],
    };
    const workflow = await pageGraphql(
      page,
      'mutation($m: JSON!) { createWorkflow(name: "Careful review", manifest: $m) { workflowId } }',
      {
        m: manifest,
      },
    );
    const workflowId = workflow.data.createWorkflow.workflowId;
    const created = await pageGraphql(
      page,
      'mutation($w: [String!]!) { createDeployment(name: "Code Review", workflowIds: $w) { deploymentId } }',
      {
        w: [workflowId],
      },
    );
    const deploymentId: string = created.data.createDeployment.deploymentId;

    // From the deployment page to its install page.
    await page.goto(`${stack.service.origin}/deployments/${deploymentId}`);
    await page.getByRole('link', { name: 'Install into any agent client' }).click();
    await page.getByRole('heading', { name: 'Install Code Review', level: 1 }).waitFor();
    for (const title of [
      'Claude Code',
      'Cursor',
      'VS Code',
      'VS Code Insiders',
      'Windsurf',
      'Gemini CLI',
      'Codex CLI',
      'LM Studio',
      'Goose',
    ]) {
      await page.getByRole('heading', { name: title, level: 2, exact: true }).waitFor();
    }
    // OAuth first: the first form of Claude Code is the sign-in one, with its two commands.
    const claude = page.getByRole('region', { name: 'Claude Code' });
    await expect(claude.locator('.install-form').first().textContent()).resolves.toContain('Sign in (OAuth)');
    const endpoint = `http://127.0.0.1:${new URL(stack.service.origin).port}/v1/mcp/${deploymentId}`;
    await expect(claude.locator('pre').first().textContent()).resolves.toBe(
      `claude mcp add --transport http code-review ${endpoint}\nclaude mcp login code-review`,
    );
    // The Cursor sign-in button is a deeplink with its web fallback.
    const cursor = page.getByRole('region', { name: 'Cursor' });
    const oauthLink = await cursor.getByRole('link', { name: 'Open in the app' }).first().getAttribute('href');
    expect(JSON.parse(Buffer.from(new URL(oauthLink!).searchParams.get('config')!, 'base64').toString())).toEqual({ url: endpoint });
    await page.waitForLoadState('networkidle');
    await checkPage(page, 'install', 'install page');

    // A key made on the page, named for the deployment, filled into the forms that need one.
    await page.getByRole('button', { name: 'Make an API key for Code Review' }).click();
    await page.getByText('Made the key “Install page: Code Review”').waitFor();
    const key = (await page.getByRole('region', { name: 'API key for this deployment' }).locator('pre').textContent())!.trim();
    expect(key).toMatch(/^wfk_[0-9A-Za-z]{40}$/);
    const keyedLink = await cursor.getByRole('link', { name: 'Open in the app' }).nth(1).getAttribute('href');
    const keyBound = JSON.parse(Buffer.from(new URL(keyedLink!).searchParams.get('config')!, 'base64').toString()).url as string;
    expect(keyBound).toBe(`http://127.0.0.1:${new URL(stack.service.origin).port}/v1/install/${deploymentId}/${key}/mcp`);
    await expect(page.getByText('Make a key above to fill it in here.').count()).resolves.toBe(0);
    // No link on the page sends the key, or the key-bound URL, to another site (in any encoding).
    const hrefs = await page.locator('a[href]').evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));
    const offSite = hrefs.filter((href) => /^https?:/.test(href) && new URL(href).origin !== stack.service.origin);
    for (const href of offSite) {
      const readings = [
        href,
        decodeURIComponent(href),
        ...[...new URL(href).searchParams.values()].map((v) => Buffer.from(v, 'base64').toString()),
      ];
      for (const text of readings) expect(text, href).not.toContain(key);
    }
    await expect(cursor.getByRole('link', { name: 'Open the web page instead' }).count()).resolves.toBe(1);
    // The key opens this deployment's catalog by URL alone.
    const catalog = await fetch(`${stack.service.origin}/v1/install/${deploymentId}/${key}/marketplace.json`);
    expect(catalog.status).toBe(200);
    expect((await catalog.json()).plugins).toHaveLength(1);
    await checkPage(page, 'install-key', 'install page with a key');

    // Without a choice: every client, after jump links to each.
    const jump = page.getByRole('navigation', { name: 'Clients' });
    await expect(jump.getByRole('link').count()).resolves.toBe(await page.locator('section.install-client').count());
    await jump.getByRole('link', { name: 'Codex CLI', exact: true }).click();
    expect(new URL(page.url()).hash).toBe('#client-codex');
    const allHeight = await page.evaluate(() => document.documentElement.scrollHeight);

    // "Your client": Cursor first, the others folded below, remembered by this browser.
    await page.getByRole('button', { name: /Your client/ }).click();
    await page.getByRole('option', { name: 'Cursor', exact: true }).click();
    const firstClient = page.locator('section.install-client').first();
    await expect(firstClient.getByRole('heading', { level: 2 }).textContent()).resolves.toBe('Cursor');
    const others = page.locator('details.install-others');
    await expect(others.locator('summary').textContent()).resolves.toMatch(/^Other clients \(\d+\)$/);
    expect(await others.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    await expect(page.getByRole('heading', { name: 'Claude Code', level: 2, exact: true }).isVisible()).resolves.toBe(false);
    await expect(jump.count()).resolves.toBe(0);
    const pickedHeight = await page.evaluate(() => document.documentElement.scrollHeight);
    expect(pickedHeight).toBeLessThan(allHeight / 2);
    expect(await page.evaluate(() => window.localStorage.getItem('install-client'))).toBe('cursor');
    await checkPage(page, 'install-picked', 'install page with a client chosen');
    // Remembered: the next visit (any deployment's install page) opens on Cursor.
    await page.reload();
    await page.getByRole('heading', { name: 'Install Code Review', level: 1 }).waitFor();
    await expect(page.locator('section.install-client').first().getByRole('heading', { level: 2 }).textContent()).resolves.toBe('Cursor');
    await expect(page.getByRole('button', { name: /Your client/ }).textContent()).resolves.toContain('Cursor');
    // The others are one click away; "Every client" lists them all again and forgets the choice.
    await others.locator('summary').click();
    await page.getByRole('heading', { name: 'Claude Code', level: 2, exact: true }).waitFor();
    await page.getByRole('button', { name: /Your client/ }).click();
    await page.getByRole('option', { name: 'Every client' }).click();
    await jump.waitFor();
    expect(await page.evaluate(() => window.localStorage.getItem('install-client'))).toBeNull();
    await context.close();
  });
});
