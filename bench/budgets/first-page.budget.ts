import { describe, expect, it } from 'vitest';
import { DESKTOP, fileBrowserStack } from '../../test/browser/service.js';

/**
 * The first page is usable within 1 s of the request (docs/dashboard.md). Its size budget is a
 * test (test/browser/first-page.test.ts); this is a timing, measured with nothing else running.
 */

const stack = fileBrowserStack({ users: { alice: 'alice@example.com' }, timeoutMs: 300_000 });

describe('the first page', { timeout: 120_000 }, () => {
  it('is usable within 1 s', async () => {
    // Best of three fresh loads (empty cache each time), so one slow moment of the machine does not decide the figure.
    const storageState = await stack.users.alice.context.storageState();
    const usable: number[] = [];
    for (let i = 0; i < 3; i++) {
      const context = await stack.chromium.browser.newContext({ viewport: DESKTOP, storageState });
      const page = await context.newPage();
      const started = Date.now();
      await page.goto(`${stack.service.origin}/deployments`);
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
