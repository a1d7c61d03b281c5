import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { freePort, startProcess, stopProcess } from '../helpers/process.js';

/** Helpers of the browser tests: the built service as a user starts it, Debian's Chromium, checks per page. */

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = '.test-results/screenshots';

/** `npm run build`, what `npm start` runs first: the service and the dashboard's assets. */
export function buildService(): void {
  // While working on the tests alone, a build just made can be reused.
  if (process.env.BROWSER_TESTS_REUSE_BUILD === '1') return;
  // As a user runs it: without the test runner's NODE_ENV=test, which would make Vite build React's development bundle.
  const { NODE_ENV: _testEnv, ...env } = process.env;
  const result = spawnSync('npm', ['run', '-s', 'build'], { encoding: 'utf8', timeout: 240_000, env });
  if (result.status !== 0) throw new Error(`npm run build failed:\n${result.stdout}\n${result.stderr}`);
}

export interface RunningProcess {
  origin: string;
  dataDir: string;
  output: () => string;
  stop(): Promise<void>;
}

/** `node dist/src/main.js` on a free loopback port, on PGlite or on the PostgreSQL database given. */
export async function startService(env: Record<string, string>, databaseUrl: string | null): Promise<RunningProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'wf-browser-'));
  const { child, output } = await startProcess(
    ['dist/src/main.js'],
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
const PHONE = { width: 360, height: 780 };

/**
 * Checks the page as a person would meet it: axe-core finds no serious or critical violation, it
 * fits a 360 px wide screen without sideways scrolling, and a screenshot at both widths is written.
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
  expect(overflow, `${label}: wider than a 360 px screen`).toBeLessThanOrEqual(1);
  const phoneResults = await new AxeBuilder({ page }).analyze();
  const phoneSerious = phoneResults.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    phoneSerious.map((v) => `${v.id}: ${v.help}`),
    `${label} at 360 px: accessibility`,
  ).toEqual([]);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
}
