import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, signIn, type RunningProcess, startBrowserStack, type BrowserStack } from '../../test/browser/service.js';

/**
 * The first page is usable within 1 s of the request (docs/dashboard.md). Its size budget is a
 * test (test/browser/first-page.test.ts); this is a timing, measured with nothing else running.
 */

let stack: BrowserStack;
let service: RunningProcess;
let chromium: { browser: Browser; close(): Promise<void> };
let signedIn: BrowserContext;

beforeAll(async () => {
  stack = await startBrowserStack();
  ({ service, chromium } = stack);
  signedIn = (await signIn(chromium.browser, service.origin, 'alice@example.com')).context;
}, 300_000);

afterAll(async () => {
  await signedIn?.close();
  await stack?.stop();
});

describe('the first page', { timeout: 120_000 }, () => {
  it('is usable within 1 s', async () => {
    // Best of three fresh loads (empty cache each time), so one slow moment of the machine does not decide the figure.
    const storageState = await signedIn.storageState();
    const usable: number[] = [];
    for (let i = 0; i < 3; i++) {
      const context = await chromium.browser.newContext({ viewport: DESKTOP, storageState });
      const page = await context.newPage();
      const started = Date.now();
      await page.goto(`${service.origin}/deployments`);
      await page.getByRole('heading', { name: 'New deployment' }).waitFor();
      usable.push(Date.now() - started);
      await page.waitForLoadState('networkidle');
      await context.close();
    }
    const best = Math.min(...usable);
    console.log(`first page: ${usable.join(', ')} ms to usable (best ${best})`);
    expect(best).toBeLessThan(1000);
  });
});
