import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { freePort, serviceArgs, startProcess, stopProcess } from '../helpers/process.js';

/** Helpers of the browser tests: the built service as a user starts it, Debian's Chromium, checks per page. */

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = '.test-results/screenshots';

/** What `npm start` runs first: `npm run build` unless the build is current (so the second test file reuses the first's). */
function buildService(): void {
  // While working on the tests alone, a build just made can be reused.
  if (process.env.BROWSER_TESTS_REUSE_BUILD === '1') return;
  // As a user runs it: without the test runner's NODE_ENV=test, which would make Vite build React's development bundle.
  const { NODE_ENV: _testEnv, ...env } = process.env;
  const result = spawnSync('node', ['scripts/build-if-stale.mjs'], { encoding: 'utf8', timeout: 600_000, env });
  if (result.status !== 0) throw new Error(`npm run build failed:\n${result.stdout}\n${result.stderr}`);
}

export interface RunningProcess {
  origin: string;
  dataDir: string;
  output: () => string;
  stop(): Promise<void>;
}

/** The built service (`npm start`'s command) on a free loopback port, on PGlite or on the PostgreSQL database given. */
export async function startService(env: Record<string, string>, databaseUrl: string | null): Promise<RunningProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'wf-browser-'));
  const { child, output } = await startProcess(
    serviceArgs('build'),
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}/v1`,
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl ?? '',
      LOG_LEVEL: 'info',
      // The tests click faster than the free plan's 30 requests a minute allow.
      RATE_LIMIT_MODE: 'report',
      ...env,
    },
    /workflow service ready on/,
  );
  return {
    origin: `http://127.0.0.1:${port}`,
    dataDir,
    output,
    async stop() {
      await stopProcess(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function launchChromium(): Promise<{ browser: Browser; close(): Promise<void> }> {
  if (!existsSync(CHROMIUM))
    throw new Error(`the browser tests drive Debian's Chromium at ${CHROMIUM}: install it with apt-get install -y chromium (.ci/run does)`);
  // Flags that keep Chromium off the network: without them it keeps calling home on a closed network.
  // Playwright gives each launch a new, empty profile directory of its own (--user-data-dir).
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return { browser, close: () => browser.close() };
}

export const DESKTOP = { width: 1280, height: 860 };
export const PHONE = { width: 390, height: 844 };

/**
 * Checks the page as a person would meet it: axe-core finds no serious or critical violation, it
 * fits a 390 px wide screen without sideways scrolling with every button, link and field inside the
 * screen's width, and a screenshot at both widths is written.
 */
export async function checkPage(page: Page, name: string, label: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.waitForLoadState('networkidle');
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`),
    `${label}: accessibility`,
  ).toEqual([]);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(150);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${label}: wider than a 390 px screen`).toBeLessThanOrEqual(1);
  const outside = await page.evaluate(() =>
    [
      ...document.querySelectorAll(
        'a[href], button, input, textarea, select, [role="button"], [role="switch"], [role="checkbox"], [role="radio"], [role="textbox"]',
      ),
    ]
      .filter((el) => !el.closest('.skip-link, .sr-only, [aria-hidden="true"]') && !el.classList.contains('skip-link'))
      .map((el) => ({ el, rect: el.getBoundingClientRect() }))
      .filter(({ rect }) => rect.width > 0 && rect.height > 0 && (rect.left < -1 || rect.right > window.innerWidth + 1))
      .map(({ el }) => `${el.tagName.toLowerCase()} “${(el.textContent ?? '').trim().slice(0, 40) || el.getAttribute('aria-label')}”`),
  );
  expect(outside, `${label}: actions outside a 390 px screen`).toEqual([]);
  const phoneResults = await new AxeBuilder({ page }).analyze();
  const phoneSerious = phoneResults.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    phoneSerious.map((v) => `${v.id}: ${v.help}`),
    `${label} at 390 px: accessibility`,
  ).toEqual([]);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
}

/**
 * A new browser context signed in on the development sign-in page as `email` (at `origin`, which
 * may also read and write the clipboard when `clipboard` is set).
 */
export async function signIn(
  browser: Browser,
  origin: string,
  email: string,
  options: { clipboard?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: DESKTOP });
  if (options.clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  await page.waitForURL(/\/sign-in\?return=/);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();
  return { context, page };
}

/** A GraphQL operation sent from the page's session (the dashboard's cookie), as another tab would send it: the answer's body. */
export function pageGraphql(page: Page, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  return page.evaluate(
    async ({ query, variables }) => {
      const res = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      return res.json();
    },
    { query, variables },
  );
}

/** A browser context and its page, signed in. */
export interface SignedIn {
  context: BrowserContext;
  page: Page;
}

/**
 * The browser stack of a test file: started before the file's tests (with a page signed in for each
 * of `users`, by name), stopped after them. Its fields are there once the tests run.
 */
export function fileBrowserStack<U extends string = never>(
  options: { users?: Record<U, string>; env?: Record<string, string>; timeoutMs?: number } = {},
): BrowserStack & { users: Record<U, SignedIn> } {
  const file = { users: {} } as BrowserStack & { users: Record<U, SignedIn> };
  beforeAll(async () => {
    Object.assign(file, await startBrowserStack(options.env));
    for (const [name, email] of Object.entries(options.users ?? {}) as [U, string][]) {
      file.users[name] = await signIn(file.chromium.browser, file.service.origin, email);
    }
  }, options.timeoutMs ?? 600_000);
  afterAll(async () => {
    if (file.service) await file.stop();
  });
  return file;
}

export interface BrowserStack {
  service: RunningProcess;
  chromium: { browser: Browser; close(): Promise<void> };
  stop(): Promise<void>;
}

/**
 * A browser test file's setup: the service built and started as a user starts it, on a database of
 * its own (a new PostgreSQL database when DATABASE_URL is set, PGlite otherwise), and Chromium.
 */
export async function startBrowserStack(env: Record<string, string> = {}): Promise<BrowserStack> {
  buildService();
  let database: TestDatabase | null = null;
  let service: RunningProcess | null = null;
  const dropDatabase = async () => {
    if (database) await database.drop().catch(() => {});
  };
  try {
    if (process.env.DATABASE_URL) {
      database = await createTestDatabase({ poolSize: 1 });
      // The service opens its own connections; the helper only made and migrated the database.
      await database.db.close();
    }
    service = await startService(env, database?.url ?? null);
    const chromium = await launchChromium();
    const started = service;
    return {
      service: started,
      chromium,
      async stop() {
        await chromium.close();
        await started.stop();
        await dropDatabase();
      },
    };
  } catch (error) {
    await service?.stop();
    await dropDatabase();
    throw error;
  }
}
