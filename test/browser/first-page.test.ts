import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, signIn, type RunningProcess, startBrowserStack, type BrowserStack } from './service.js';

/**
 * The first page's budgets: at most 250 KB of compressed JavaScript, usable within 1 s. A timing, so
 * `npm test` runs this file alone, before the other browser files: with them beside it on a small machine
 * it would measure their CPU, not the page.
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
  it('loads within the budgets: initial JavaScript ≤ 250 KB compressed, usable within 1 s', async () => {
    // Best of three fresh loads (empty cache each time), so one slow moment of the machine does not decide the figure.
    const storageState = await signedIn.storageState();
    const runs: { usableMs: number; scriptBytes: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const context = await chromium.browser.newContext({ viewport: DESKTOP, storageState });
      const page = await context.newPage();
      let scriptBytes = 0;
      page.on('response', (response) => {
        // The compressed bytes as sent (the service gzips scripts for browsers that accept it).
        if (response.request().resourceType() === 'script') scriptBytes += Number(response.headers()['content-length'] ?? 0);
      });
      const started = Date.now();
      await page.goto(`${service.origin}/deployments`);
      await page.getByRole('heading', { name: 'New deployment' }).waitFor();
      const usableMs = Date.now() - started;
      await page.waitForLoadState('networkidle');
      runs.push({ usableMs, scriptBytes });
      await context.close();
    }
    const best = Math.min(...runs.map((r) => r.usableMs));
    const scriptBytes = Math.max(...runs.map((r) => r.scriptBytes));
    console.log(
      `first page: ${runs.map((r) => r.usableMs).join(', ')} ms to usable (best ${best}), ${(scriptBytes / 1024).toFixed(1)} KB of compressed JavaScript`,
    );
    expect(scriptBytes).toBeGreaterThan(10_000);
    expect(scriptBytes).toBeLessThanOrEqual(250 * 1024);
    expect(best).toBeLessThan(1000);
  });
});
