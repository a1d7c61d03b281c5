import { describe, expect } from 'vitest';
import { serviceTest } from '../helpers/service-test.js';
import { createWorkflow, sampleManifest } from '../helpers/workflows.js';

/**
 * Versions recorded before digests existed get theirs when the service starts: the same digest the
 * service writes with a new version, computed once (idempotent), and a version row written without
 * its name (as older rows were, before the migration copied the workflow's) takes the workflow's.
 */
describe('filling missing digests at start', () => {
  serviceTest('gives rows without a digest the digest the service writes, once', async ({ service: t }) => {
    const token = await t.token('filler@example.com');
    const prisma = t.database.db.prisma;
    const w = await createWorkflow(t, token, { name: 'Old one' });
    await t.call('PUT', `/v1/workflows/${w.workflowId}`, { token, body: { manifest: sampleManifest({ intent: 'Second version' }) } });
    const written = await prisma.workflowVersion.findMany({ where: { workflowId: w.workflowId }, orderBy: { version: 'asc' } });
    expect(written.map((v) => v.digest)).toEqual([expect.stringMatching(/^sha256:/), expect.stringMatching(/^sha256:/)]);
    const current = (await prisma.workflow.findUniqueOrThrow({ where: { id: w.workflowId } })).digest;

    // As before digests existed: no digest anywhere, and the first version without its name.
    await prisma.workflowVersion.updateMany({ where: { workflowId: w.workflowId }, data: { digest: null } });
    await prisma.workflowVersion.updateMany({ where: { workflowId: w.workflowId, version: '1.0.0' }, data: { name: '' } });
    await prisma.workflow.update({ where: { id: w.workflowId }, data: { digest: null } });

    expect(await t.app.services.workflows.fillMissingDigests()).toBe(2);
    const filled = await prisma.workflowVersion.findMany({ where: { workflowId: w.workflowId }, orderBy: { version: 'asc' } });
    expect(filled.map((v) => [v.version, v.name, v.digest])).toEqual(written.map((v) => [v.version, 'Old one', v.digest]));
    expect((await t.call('GET', `/v1/workflows/${w.workflowId}`, { token })).body.data.digest).toBe(current);
    // Idempotent: nothing is left to fill.
    expect(await t.app.services.workflows.fillMissingDigests()).toBe(0);
  });
});
