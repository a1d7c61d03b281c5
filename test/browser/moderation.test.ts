import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn, startBrowserStack, type BrowserStack } from './service.js';

/**
 * Report and take down on the dashboard, in Debian's Chromium against the built service: a
 * subscriber reports a workflow from its listing, an operator (ADMIN_EMAILS) suspends it on
 * /admin/reports, the subscriber's deployment page says why it is no longer served and the
 * author's editor shows it; for anyone else /admin/reports is the dashboard's page-not-found.
 */

const OPERATOR = 'ops-browser@example.com';
let stack: BrowserStack;

beforeAll(async () => {
  stack = await startBrowserStack({ ADMIN_EMAILS: OPERATOR });
}, 600_000);

afterAll(async () => {
  await stack?.stop();
});

/** A GraphQL operation sent by the signed-in page itself (its session cookie), as the dashboard sends them. */
async function graphql(page: Page, query: string, variables: Record<string, unknown>): Promise<any> {
  const body = await page.evaluate(
    async ([q, v]) => {
      const res = await fetch('/graphql', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query: q, variables: v }),
      });
      return res.json();
    },
    [query, variables] as const,
  );
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

const MANIFEST = {
  manifest_version: '1.0',
  name: 'Secret reader',
  intent: 'Read the project settings',
  steps: [{ id: 'read', name: 'Read the settings', action: 'code_agent' }],
};

describe('report and take down on the dashboard', { timeout: 300_000 }, () => {
  it('a report reaches the operators, a suspension reaches the subscriber and the author', async () => {
    const origin = stack.service.origin;
    const author = await signIn(stack.chromium.browser, origin, 'author-browser@example.com');
    const subscriber = await signIn(stack.chromium.browser, origin, 'subscriber-browser@example.com');
    const created = await graphql(
      author.page,
      'mutation($m: JSON!) { createWorkflow(name: "Secret reader", description: "Reads settings", manifest: $m, visibility: public) { workflowId } }',
      { m: MANIFEST },
    );
    const workflowId: string = created.createWorkflow.workflowId;
    await graphql(subscriber.page, 'mutation($id: String!) { addToLibrary(workflowId: $id) { workflowId } }', { id: workflowId });
    const dep = await graphql(
      subscriber.page,
      'mutation($ids: [String!]!) { createDeployment(name: "Subscriber tools", workflowIds: $ids) { deploymentId } }',
      { ids: [workflowId] },
    );
    const deploymentId: string = dep.createDeployment.deploymentId;

    // The subscriber reports it from its listing; /admin/reports is not a page for them.
    const page = subscriber.page;
    await page.goto(`${origin}/marketplace/${workflowId}`);
    await page.getByRole('button', { name: 'Report this workflow' }).click();
    await page.getByLabel('What is wrong with this workflow?').fill('It asks the agent to print ~/.aws/credentials');
    await page.getByRole('button', { name: 'Send report' }).click();
    await page.getByText('the operators will look at your report').waitFor();
    await page.goto(`${origin}/admin/reports`);
    await page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
    expect(await page.getByRole('link', { name: 'Reports' }).count()).toBe(0);

    // The operator sees the report and suspends the workflow, with a reason.
    const operator = await signIn(stack.chromium.browser, origin, OPERATOR);
    await operator.page.getByRole('link', { name: 'Reports' }).click();
    await operator.page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor();
    await operator.page.getByText('It asks the agent to print ~/.aws/credentials').waitFor();
    await operator.page.getByLabel('Reason (shown to the author and the subscribers)').fill('Reads credentials');
    await operator.page.getByRole('button', { name: 'Suspend' }).click();
    await operator.page.getByRole('cell', { name: 'Reads credentials' }).waitFor();
    await operator.page.getByText('No open reports.').waitFor();

    // The subscriber's deployment page says why; the author's editor shows it.
    await page.goto(`${origin}/deployments/${deploymentId}`);
    await page.getByText('Not served by this endpoint: suspended by the operators: Reads credentials').waitFor();
    await author.page.goto(`${origin}/workflows/${workflowId}`);
    await author.page.getByText('Suspended by the operators').waitFor();
    await author.page.getByText('Reason: Reads credentials').waitFor();
  });
});
