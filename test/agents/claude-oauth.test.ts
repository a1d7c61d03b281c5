import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP } from '../browser/service.js';
import { AgentHome } from './clients.js';
import { type EgressProxy } from './proxy.js';
import { type AgentDeployment, type AgentService } from './service.js';
import { allowClaudeLogin, claudeLogin, startClaudeLoginStack, type ClaudeLoginStack } from './claude-login.js';

/**
 * The real Claude Code CLI signs in to a deployment with OAuth, as docs/mcp.md tells a user to:
 * `claude mcp add` with the endpoint alone, `claude mcp login --no-browser` at a terminal, the
 * printed address opened in a browser (Debian's Chromium) where the user signs in and allows it,
 * the CLI's loopback callback, then Disconnect on the dashboard's Account page.
 */

const OWNER = 'owner@example.com';

/**
 * The dashboard built as `npm run build` builds it (Vite, production mode), into a temporary folder
 * of its own: the tests that click through the Account page serve it without depending on a build
 * left in dist/. Answers the folder and how to remove it.
 */
async function buildDashboard(): Promise<{ dir: string; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'wf-agent-web-'));
  // As a user builds it: without the test runner's NODE_ENV=test, which would give React's development bundle.
  const { NODE_ENV: _testEnv, ...env } = process.env;
  await promisify(execFile)(
    process.execPath,
    ['node_modules/vite/bin/vite.js', 'build', '--config', 'web/vite.config.ts', '--outDir', dir, '--emptyOutDir', '--logLevel', 'warn'],
    { timeout: 300_000, env },
  ).catch((error: Error & { stdout?: string; stderr?: string }) => {
    throw new Error(`building the dashboard failed: ${error.message}\n${error.stdout}\n${error.stderr}`);
  });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

let dashboard: { dir: string; remove(): void };
let stack: ClaudeLoginStack;
let service: AgentService;
let proxy: EgressProxy;
let deployment: AgentDeployment;
let chromium: ClaudeLoginStack['chromium'];
let home: AgentHome;

beforeAll(async () => {
  dashboard = await buildDashboard();
  stack = await startClaudeLoginStack({ dashboardDir: dashboard.dir });
  ({ service, proxy, deployment, chromium } = stack);
}, 600_000);

afterAll(async () => {
  await home?.close();
  await stack?.close();
  dashboard?.remove();
});

/** What the browser was answered by the service along the way, for a failure's message. */
function recordAnswers(page: Page, origin: string): string[] {
  const seen: string[] = [];
  page.on('response', async (response) => {
    const url = response.url();
    if (!url.startsWith(origin) || /\/assets\//.test(url)) return;
    const type = response.headers()['content-type'] ?? '';
    const body = /json|text\/plain/.test(type) ? (await response.text().catch(() => '')).slice(0, 500) : '';
    seen.push(`${response.request().method()} ${url.slice(origin.length)} → ${response.status()} ${type} ${body}`);
  });
  return seen;
}

describe('Claude Code signs in with OAuth', { timeout: 240_000 }, () => {
  it('`claude mcp login --no-browser`, sign-in and consent in Chromium: ✔ Connected; after Disconnect on the Account page, no longer Connected', async () => {
    home = new AgentHome({ proxy: proxy.url });
    const add = await home.run('claude', ['mcp', 'add', '--transport', 'http', 'workflows', deployment.endpoint]);
    expect(add.code, add.output).toBe(0);
    const before = await home.run('claude', ['mcp', 'list']);
    expect(before.output).toMatch(/workflows: .* - ! Needs authentication/);

    const { login, authorization } = await claudeLogin(home);
    // What Claude Code asks for: its client ID metadata document, PKCE, a loopback callback, this endpoint as the resource.
    expect(Object.fromEntries(authorization.searchParams)).toMatchObject({
      client_id: 'https://claude.ai/oauth/claude-code-client-metadata',
      response_type: 'code',
      code_challenge_method: 'S256',
      scope: 'mcp offline_access',
      resource: deployment.endpoint,
    });
    expect(authorization.searchParams.get('redirect_uri')).toMatch(/^http:\/\/localhost:\d+\/callback$/);

    const context = await chromium.browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const answers = recordAnswers(page, service.origin);
    const explain = async (step: string) =>
      `${step}\nbrowser at ${page.url()}:\n${(await page.content().catch(() => '')).slice(0, 2000)}\nservice answers:\n${answers.join('\n')}\nCLI:\n${login.text()}`;
    try {
      await page.goto(authorization.href);
      // Not signed in: the development sign-in page, then the consent page for Claude Code.
      await page.getByLabel('E-mail address').fill(OWNER, { timeout: 30_000 });
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Allow' }).waitFor({ timeout: 30_000 });
      expect(await page.content()).toContain('Claude Code');
      // The browser lands on the CLI's loopback callback; the CLI takes the code and finishes.
      await allowClaudeLogin(page, login);
    } catch (error) {
      throw new Error(await explain(String(error)));
    }

    const connected = await home.run('claude', ['mcp', 'list']);
    expect(connected.output).toMatch(/workflows: .* \(HTTP\) - ✔ Connected/);

    // Disconnect on the dashboard's Account page: the CLI's tokens stop working.
    try {
      await page.goto(`${service.origin}/account`);
      // A known client is listed by the name the consent page gave it, with its client_id beneath.
      const row = page.getByRole('row', { name: /Claude Code/ });
      await row.getByText('https://claude.ai/oauth/claude-code-client-metadata').waitFor();
      expect(await row.getByRole('cell').nth(0).innerText()).toBe('Everything');
      await row.getByRole('button', { name: 'Disconnect Claude Code' }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Disconnect' }).click();
      await page.getByText('“Claude Code” disconnected.').waitFor();
      await page.getByText('No connected applications.').waitFor();
    } catch (error) {
      throw new Error(
        `${String(error)}\nAccount page:\n${(await page.innerText('body').catch(() => '')).split('Connected applications').slice(1).join('')}`,
      );
    }
    await context.close();

    const after = await home.run('claude', ['mcp', 'list']);
    expect(after.output).toMatch(/workflows: /);
    expect(after.output).not.toMatch(/Connected/);
    expect(proxy.refused).toEqual([]);
  });
});

describe('Claude Code given the localhost form of the endpoint', { timeout: 240_000 }, () => {
  it('`claude mcp add` with http://localhost:<port>/…: login through the 127.0.0.1 issuer, ✔ Connected', async () => {
    const localhostHome = new AgentHome({ proxy: proxy.url });
    try {
      const endpoint = deployment.endpoint.replace('//127.0.0.1:', '//localhost:');
      expect(endpoint).toMatch(/^http:\/\/localhost:\d+\/v1\/mcp\//);
      const add = await localhostHome.run('claude', ['mcp', 'add', '--transport', 'http', 'workflows', endpoint]);
      expect(add.code, add.output).toBe(0);
      const before = await localhostHome.run('claude', ['mcp', 'list']);
      // Not "Error dialing": the 401 names the metadata of the localhost form, which the CLI can use.
      expect(before.output).toMatch(/workflows: .* - ! Needs authentication/);

      const { login, authorization } = await claudeLogin(localhostHome);
      // The resource is the address Claude Code was given; the issuer is the configured origin.
      expect(authorization.searchParams.get('resource')).toBe(endpoint);

      const context = await chromium.browser.newContext({ viewport: DESKTOP });
      const page = await context.newPage();
      const answers = recordAnswers(page, service.origin);
      try {
        await page.goto(authorization.href);
        await page.getByLabel('E-mail address').fill(OWNER, { timeout: 30_000 });
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('button', { name: 'Allow' }).waitFor({ timeout: 30_000 });
        expect(await page.content()).toContain(endpoint);
        await allowClaudeLogin(page, login);
      } catch (error) {
        throw new Error(`${String(error)}\nbrowser at ${page.url()}\nservice answers:\n${answers.join('\n')}\nCLI:\n${login.text()}`);
      } finally {
        await context.close();
      }
      const connected = await localhostHome.run('claude', ['mcp', 'list']);
      expect(connected.output).toMatch(/workflows: .* \(HTTP\) - ✔ Connected/);
      expect(proxy.refused).toEqual([]);
    } finally {
      await localhostHome.close();
    }
  });
});
