import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, signIn, type RunningProcess, startBrowserStack, type BrowserStack } from './service.js';

/**
 * Two people's hour with the dashboard, compressed into a scripted run against a service that
 * enforces the free plan's rate limits (30 requests a minute for REST, GraphQL and tool endpoints),
 * both behind one address as behind one NAT: 8 fresh loads of pages in a minute each, 100 edits in
 * the manifest editor within two minutes, then a tool-endpoint call with the same user's API key.
 * No response is a 429, no page is blank and none shows a rate-limit message. The counts are the
 * issue's; the run is faster than real time, which only makes the per-minute budgets harder to keep.
 */

const MANIFEST = `# Written in the editor during the hour
manifest_version: "1.0"
name: Hourly triage
intent: Sort the new issues and draft answers
steps:
  - id: sort
    name: Sort the new issues
    action: github_integration
  - id: answer
    name: Draft the answers
    action: docs_agent
    depends_on: [sort]
`;

const PAGES = ['/deployments', '/workflows', '/library', '/account', '/marketplace', '/deployments', '/workflows', '/library'];
const RATE_LIMIT_WORDS = /too many requests|rate limit|try again in|wait \d+ ?s/i;

let stack: BrowserStack;
let service: RunningProcess;
let chromium: { browser: Browser; close(): Promise<void> };

/** Every answer the browser got that is a refusal for too many requests or a server error. */
const refused: string[] = [];

function watch(context: BrowserContext): void {
  context.on('response', (response) => {
    if (response.status() === 429 || response.status() >= 500) refused.push(`${response.status()} ${response.url()}`);
  });
}

beforeAll(async () => {
  // The free plan's limits as a user meets them: enforced, not only reported.
  stack = await startBrowserStack({ RATE_LIMIT_MODE: 'enforce' });
  ({ service, chromium } = stack);
}, 600_000);

afterAll(async () => {
  await stack?.stop();
});

/** A page that has rendered its own content: a level-1 heading, some text, no rate-limit message. */
async function expectUsable(page: Page, path: string): Promise<void> {
  await page.getByRole('heading', { level: 1 }).first().waitFor({ timeout: 15_000 });
  const text = await page.locator('body').innerText();
  expect(text.trim().length, `${path}: blank page`).toBeGreaterThan(40);
  expect(text, `${path}: rate-limit message`).not.toMatch(RATE_LIMIT_WORDS);
}

/** 8 fresh loads (a new browser context each: empty cache, as a first visit) within one minute. */
async function freshLoads(user: { context: BrowserContext }): Promise<number> {
  const started = Date.now();
  const state = await user.context.storageState();
  for (const path of PAGES) {
    const context = await chromium.browser.newContext({ viewport: DESKTOP, storageState: state });
    watch(context);
    const page = await context.newPage();
    const answer = await page.goto(`${service.origin}${path}`);
    expect(answer?.status(), path).toBe(200);
    await expectUsable(page, path);
    await context.close();
  }
  return Date.now() - started;
}

describe('a two-user hour under the enforced free-plan limits', { timeout: 300_000 }, () => {
  it('8 fresh loads a minute each, 100 edits in two minutes, then a tool call with the same user’s key: no 429, no blank page', async () => {
    const erin = await signIn(chromium.browser, service.origin, 'erin@example.com');
    const frank = await signIn(chromium.browser, service.origin, 'frank@example.com');
    watch(erin.context);
    watch(frank.context);

    // Erin's fresh loads; Frank's follow while Erin types, from the same address.
    expect(await freshLoads(erin)).toBeLessThan(60_000);

    const page = erin.page;
    await page.goto(`${service.origin}/workflows/new`);
    const editor = page.getByLabel('Manifest (YAML or JSON)');
    await editor.waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Hourly triage');
    await editor.fill(MANIFEST);
    const problems = page.locator('#manifest-problems');
    await problems.getByText('The manifest is valid.').waitFor();

    const typing = (async () => {
      const started = Date.now();
      await editor.press('Control+End');
      // Each edit is followed by a pause longer than the editor's check delay, so each is checked.
      for (let i = 0; i < 100; i++) {
        await editor.press(i % 2 === 0 ? '#' : 'Backspace');
        await page.waitForTimeout(350);
        if (i % 10 === 9) {
          await problems.getByText('The manifest is valid.').waitFor();
          expect(await page.locator('body').innerText()).not.toMatch(RATE_LIMIT_WORDS);
        }
      }
      return Date.now() - started;
    })();
    const [typedMs, frankMs] = await Promise.all([typing, freshLoads(frank)]);
    expect(typedMs, '100 edits within two minutes').toBeLessThan(120_000);
    expect(frankMs, "Frank's 8 loads within a minute").toBeLessThan(60_000);

    await page.getByRole('button', { name: 'Create workflow' }).click();
    await page.waitForURL(/\/workflows\/wf_/);
    await expectUsable(page, 'the saved workflow');
    const workflowId = /\/workflows\/(wf_\w+)/.exec(page.url())![1]!;

    // A deployment and a key for it, made from the dashboard's session (GraphQL with the cookie).
    const secret = await page.evaluate(async (id) => {
      const call = async (query: string, variables: Record<string, unknown>) => {
        const res = await fetch('/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query, variables }),
        });
        return (await res.json()) as { data: Record<string, Record<string, string>> };
      };
      const made = await call('mutation($ids: [String!]!) { createDeployment(name: "Triage", workflowIds: $ids) { deploymentId } }', {
        ids: [id],
      });
      const deploymentId = made.data.createDeployment!.deploymentId!;
      const key = await call('mutation($d: [String!]) { createApiKey(name: "Erin’s IDE", scope: "mcp", deploymentIds: $d) { secret } }', {
        d: [deploymentId],
      });
      return { deploymentId, secret: key.data.createApiKey!.secret! };
    }, workflowId);

    // Erin's IDE, right after all that: its budget was not spent by the dashboard.
    const client = new Client({ name: 'erin-ide', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${service.origin}/v1/mcp/${secret.deploymentId}`), {
        requestInit: { headers: { authorization: `Bearer ${secret.secret}` } },
      }),
    );
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    await client.close();

    expect(refused).toEqual([]);
    await erin.context.close();
    await frank.context.close();
  });
});
