import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { launchChromium } from '../browser/service.js';
import { ensureAgentClients, type AgentHome, type TerminalRun } from './clients.js';
import { startEgressProxy, type EgressProxy } from './proxy.js';
import { seedDeployment, startAgentService, type AgentDeployment, type AgentService } from './service.js';

/**
 * What Claude Code's OAuth sign-in is tried with: the service on loopback (started with
 * `options`), the CLIs' proxy refusing everything but loopback, a deployment, and Chromium.
 */
export interface ClaudeLoginStack {
  service: AgentService;
  proxy: EgressProxy;
  deployment: AgentDeployment;
  chromium: { browser: Browser; close(): Promise<void> };
  close(): Promise<void>;
}

export async function startClaudeLoginStack(options: Parameters<typeof startAgentService>[0] = {}): Promise<ClaudeLoginStack> {
  await ensureAgentClients();
  const service = await startAgentService(options);
  const proxy = await startEgressProxy();
  const deployment = await seedDeployment(service.t);
  const chromium = await launchChromium();
  return {
    service,
    proxy,
    deployment,
    chromium,
    async close() {
      await chromium.close();
      await proxy.close();
      await service.close();
    },
  };
}

/** `claude mcp login --no-browser` at a terminal: the running login and the authorization address it printed. */
export async function claudeLogin(home: AgentHome): Promise<{ login: TerminalRun; authorization: URL }> {
  const login = home.runInTerminal(['claude', 'mcp', 'login', 'workflows', '--no-browser']);
  const [, printed] = await login.waitFor(/(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)/, 60_000);
  return { login, authorization: new URL(printed!) };
}

/** Allow on the consent page: the browser lands on the CLI's loopback callback, and the CLI takes the code and finishes. */
export async function allowClaudeLogin(page: Page, login: TerminalRun): Promise<void> {
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL(/^http:\/\/localhost:\d+\/callback\?/, { timeout: 30_000 });
  await login.waitFor(/success|authenticated/i, 60_000);
  expect(await login.exited(30_000)).toBe(0);
}
