import { describe, expect, it } from 'vitest';
import { sampleManifest } from '../helpers/workflows.js';
import { fileBrowserStack, pageGraphql } from './service.js';

/**
 * The workflow editor saves over the revision it opened (docs/concurrency.md): a save made in
 * another tab since is not replaced; the editor says so and reloads on request. In Debian's
 * Chromium against the built service, on PGlite or on PostgreSQL when DATABASE_URL is set.
 */

const stack = fileBrowserStack({ users: { erin: 'erin@example.com' } });

describe('the workflow editor and a save made elsewhere', { timeout: 180_000 }, () => {
  it('refuses to replace the other save, says why, and reloads the workflow on request', async () => {
    const page = stack.users.erin.page;
    const created = await pageGraphql(page, 'mutation ($m: JSON!) { createWorkflow(name: "Opened twice", manifest: $m) { workflowId } }', {
      m: sampleManifest(),
    });
    const workflowId = created.data.createWorkflow.workflowId as string;
    await page.goto(`${stack.service.origin}/workflows/${workflowId}`);
    await page.getByText('Version 1.0.0').waitFor();
    await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe('Opened twice');

    // Another tab renames it.
    const other = await pageGraphql(
      page,
      'mutation ($id: String!) { updateWorkflow(workflowId: $id, name: "Renamed in another tab") { name } }',
      {
        id: workflowId,
      },
    );
    expect(other.data.updateWorkflow.name).toBe('Renamed in another tab');

    await page.getByLabel('Description').fill('My edit');
    await page.getByRole('button', { name: 'Save' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Changed since you opened it' });
    await alert.waitFor();
    expect(await alert.innerText()).toContain('your save was not made');
    const stored = await pageGraphql(page, 'query ($id: String!) { workflow(workflowId: $id) { name description } }', { id: workflowId });
    expect(stored.data.workflow).toEqual({ name: 'Renamed in another tab', description: '' });

    await alert.getByRole('button', { name: 'Reload the workflow' }).click();
    await expect.poll(() => page.getByLabel('Name', { exact: true }).inputValue(), { timeout: 15_000 }).toBe('Renamed in another tab');
    await page.getByLabel('Description').fill('My edit');
    await page.getByRole('button', { name: 'Save' }).click();
    // The rename made 1.0.1 (a name is part of a version), and this description 1.0.2.
    await page.getByText('Saved as version 1.0.2.').waitFor();
    const saved = await pageGraphql(page, 'query ($id: String!) { workflow(workflowId: $id) { name description } }', { id: workflowId });
    expect(saved.data.workflow).toEqual({ name: 'Renamed in another tab', description: 'My edit' });
  });
});
