import { describe, expect, it } from 'vitest';
import { checkPage, fileBrowserStack } from './service.js';

/**
 * A newcomer's first hour, in Debian's Chromium against the built service: edits that survive
 * leaving the editor (a link, a reload, the back link of a new workflow), and the prompt that comes
 * before leaving with unsaved changes; a manifest written as JSON that stays JSON, the Name that
 * follows the manifest's `name` (and says so when they differ), versions compared as written; keys
 * made twice by "Set up an IDE" that never share a name.
 */

const stack = fileBrowserStack({ users: { erin: 'erin@example.com' } });

const EDITED = `manifest_version: "1.0"
name: Triage
intent: Sort new issues by area and urgency
steps:
  - id: read
    name: Read the new issues
    action: planning_agent
  - id: label
    name: Label each one
    action: code_agent
    depends_on: [read]
`;

describe('the first hour in the dashboard', { timeout: 180_000 }, () => {
  it('fifteen sign-ins in a row from one address all land on the dashboard, on the sign-in pages’ own budget', async () => {
    const limits: string[] = [];
    for (let i = 0; i < 15; i += 1) {
      const context = await stack.chromium.browser.newContext();
      context.on('response', (response) => {
        if (new URL(response.url()).pathname.startsWith('/sign-in')) limits.push(response.headers()['x-ratelimit-limit'] ?? 'none');
      });
      const page = await context.newPage();
      await page.goto(`${stack.service.origin}/`);
      await page.waitForURL(/\/sign-in\?return=/);
      await page.getByLabel('E-mail address').fill(`newcomer-${i}@example.com`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();
      await context.close();
    }
    // The page and its form, fifteen times: thirty requests, which the address's API budget (30 a
    // minute on the free plan) could not have carried after the first page loads.
    expect(limits.length).toBeGreaterThanOrEqual(30);
    expect(new Set(limits)).toEqual(new Set(['120']));
  });

  it('a new workflow: leaving by "← Workflows" asks first; declining stays, accepting leaves; coming back restores the edits', async () => {
    const page = stack.users.erin.page;
    await page.goto(`${stack.service.origin}/workflows/new`);
    const editor = page.getByLabel('Manifest (YAML or JSON)');
    await editor.waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Issue triage');
    await editor.fill(EDITED);

    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByRole('link', { name: '← Workflows' }).click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toContain('unsaved changes');
    expect(new URL(page.url()).pathname).toBe('/workflows/new');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('link', { name: '← Workflows' }).click();
    await page.waitForURL(/\/workflows$/);

    await page.goto(`${stack.service.origin}/workflows/new`);
    await page.getByText('Your unsaved changes from').waitFor();
    await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe('Issue triage');
    await expect(page.getByLabel('Manifest (YAML or JSON)').innerText()).resolves.toContain('Sort new issues by area and urgency');

    // Saving ends the draft: the next new workflow starts from the starter manifest.
    await page.getByRole('button', { name: 'Create workflow' }).click();
    await page.waitForURL(/\/workflows\/wf_/);
    await page.goto(`${stack.service.origin}/workflows/new`);
    await page.getByLabel('Manifest (YAML or JSON)').waitFor();
    // The Name comes from the starter manifest's `name`.
    await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe('My workflow');
    expect(await page.getByText('Your unsaved changes from').count()).toBe(0);
  });

  it('an existing workflow: a reload asks first, and the edits come back after it; "Discard" returns to what was saved', async () => {
    const page = stack.users.erin.page;
    await page.goto(`${stack.service.origin}/workflows`);
    await page.getByRole('link', { name: 'Issue triage' }).first().click();
    await page.waitForURL(/\/workflows\/wf_/);
    const editor = page.getByLabel('Manifest (YAML or JSON)');
    await editor.waitFor();
    await page.getByLabel('Description').fill('Edited but not saved');

    // The browser's own prompt before a reload (beforeunload).
    const kinds: string[] = [];
    page.once('dialog', (dialog) => {
      kinds.push(dialog.type());
      void dialog.accept();
    });
    await page.reload();
    expect(kinds).toEqual(['beforeunload']);
    await page.getByText('Your unsaved changes from').waitFor();
    await expect(page.getByLabel('Description').inputValue()).resolves.toBe('Edited but not saved');

    await page.getByRole('button', { name: 'Discard the unsaved changes' }).click();
    await expect(page.getByLabel('Description').inputValue()).resolves.toBe('');
    // Nothing left to lose: leaving asks nothing.
    let promptedAgain = false;
    page.once('dialog', (dialog) => {
      promptedAgain = true;
      void dialog.accept();
    });
    await page.getByRole('link', { name: '← Workflows' }).click();
    await page.waitForURL(/\/workflows$/);
    expect(promptedAgain).toBe(false);
  });

  it('a JSON manifest stays JSON; the Name follows the manifest’s name, and says so when they differ; versions compare as written', async () => {
    const page = stack.users.erin.page;
    await page.goto(`${stack.service.origin}/workflows/new`);
    const editor = page.getByLabel('Manifest (YAML or JSON)');
    await editor.waitFor();
    const json = (name: string, intent: string) =>
      `${JSON.stringify(
        {
          manifest_version: '1.0',
          name,
          intent,
          steps: [
            { id: 'scan', name: 'Scan the logs', action: 'planning_agent' },
            { id: 'fix', name: 'Fix what failed', action: 'code_agent', depends_on: ['scan'] },
          ],
        },
        null,
        2,
      )}\n`;
    // The Name is filled from the manifest's `name`, and follows it.
    await editor.fill(json('Log doctor', 'Find failures in the logs and fix them'));
    await expect.poll(() => page.getByLabel('Name', { exact: true }).inputValue()).toBe('Log doctor');
    await page.locator('#manifest-problems').getByText('The manifest is valid.').waitFor();
    await page.getByRole('button', { name: 'Create workflow' }).click();
    await page.waitForURL(/\/workflows\/wf_/);
    const workflowUrl = page.url();

    // Shown as written: JSON, not YAML.
    await page.getByRole('heading', { name: 'Log doctor', level: 1 }).waitFor();
    const shown = (await page.getByLabel('Manifest (YAML or JSON)').innerText()).trim();
    expect(shown.startsWith('{')).toBe(true);
    expect(JSON.parse(shown)).toEqual(JSON.parse(json('Log doctor', 'Find failures in the logs and fix them')));
    expect(shown).toContain('"intent": "Find failures in the logs and fix them"');

    // A Name that differs from the manifest's is said, with a way back.
    await page.getByLabel('Name', { exact: true }).fill('Logs');
    const hint = page.locator('#name-vs-manifest');
    await hint.getByText('The manifest’s name is “Log doctor”').waitFor();
    await checkPage(page, 'workflow-edit-json', 'editor with a JSON manifest and a Name that differs');
    await hint.getByRole('button', { name: 'Use “Log doctor”' }).click();
    await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe('Log doctor');
    await hint.waitFor({ state: 'detached' });

    // A second version, still JSON: the comparison shows the JSON lines as written.
    await page.getByLabel('Manifest (YAML or JSON)').fill(json('Log doctor', 'Find failures in the nightly logs and fix them'));
    await page.locator('#manifest-problems').getByText('The manifest is valid.').waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/Saved as version 1\.\d+\.\d+\./).waitFor();
    const diff = page.getByLabel(/Changes from 1\.0\.0 to/);
    await diff.waitFor();
    await expect.poll(() => diff.locator('ins').innerText()).toContain('"intent": "Find failures in the nightly logs and fix them",');
    expect(await diff.locator('del').innerText()).toContain('"intent": "Find failures in the logs and fix them",');
    expect(await diff.innerText()).not.toContain('intent: Find');
    await page.reload();
    expect((await page.getByLabel('Manifest (YAML or JSON)').innerText()).trim().startsWith('{')).toBe(true);
    await page.getByLabel(/Changes from 1\.0\.0 to/).waitFor();
    await checkPage(page, 'workflow-versions-json', 'version comparison of a JSON manifest');
    expect(page.url()).toBe(workflowUrl);
  });

  it('"Set up an IDE" twice on one deployment: two keys, never one name twice', async () => {
    const page = stack.users.erin.page;
    const workflowId = /\/workflows\/(wf_\w+)/.exec(
      (await page.goto(`${stack.service.origin}/workflows`),
      await page.getByRole('link', { name: 'Log doctor' }).first().getAttribute('href'))!,
    )![1]!;
    const created = await page.evaluate(async (id) => {
      const res = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: `mutation { createDeployment(name: "Night shift", workflowIds: ["${id}"]) { deploymentId } }` }),
      });
      return ((await res.json()) as { data: { createDeployment: { deploymentId: string } } }).data.createDeployment.deploymentId;
    }, workflowId);
    for (const name of ['IDE setup: Night shift', 'IDE setup: Night shift (2)']) {
      await page.goto(`${stack.service.origin}/deployments/${created}`);
      await page.getByRole('button', { name: 'Set up an IDE' }).click();
      await page.getByText(`API key “${name}” created`).waitFor();
    }
    // Adapters are named by their clients.
    for (const label of ['Claude Code (adapter_one)', 'Cursor (adapter_two)', 'Other clients (adapter_three)'])
      await page.getByRole('switch', { name: label }).waitFor();
    await checkPage(page, 'deployment-adapters', 'deployment page with adapters by name');
    await page.getByRole('link', { name: 'Account', exact: true }).click();
    await page.getByRole('row', { name: /IDE setup: Night shift \(2\)/ }).waitFor();
    await expect(page.getByRole('row', { name: /IDE setup: Night shift/ }).count()).resolves.toBe(2);

    // Deleting the workflow names the deployment that uses it; choosing Public without a public name says how it is shown.
    await page.goto(`${stack.service.origin}/workflows/${workflowId}`);
    await page.getByRole('heading', { name: 'Log doctor', level: 1 }).waitFor();
    await page.getByText('Public (published in the marketplace)').click();
    await page.locator('#public-name-hint').getByText('under a pseudonym (“user-…”)').waitFor();
    await page.getByText('Private (only you)').click();
    await page.getByRole('button', { name: 'Delete workflow' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByText('Used by the deployment “Night shift”').waitFor();
    await checkPage(page, 'workflow-delete-used', 'delete dialog naming the deployment that uses the workflow');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });
});
