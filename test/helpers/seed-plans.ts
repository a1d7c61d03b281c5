import { randomBytes } from 'node:crypto';
import type { TestApp } from './app.js';
import { seedSubscription } from './seed.js';
import { versionDigest } from '../../src/workflows/digest.js';

/**
 * Rows the plans, billing and deletion tests need from other capabilities, written with Prisma
 * in the shapes those capabilities write them. Assertions go through REST and GraphQL.
 */

const suffix = () => randomBytes(6).toString('hex');

export const MANIFEST = {
  manifest_version: '1.0',
  name: 'seeded',
  intent: 'A seeded workflow',
  steps: [{ id: 'plan', name: 'Plan', action: 'planning_agent' }],
};

/** `count` workflows of `ownerId`, each with `versions` versions and its owned library entry. */
export async function seedWorkflows(
  t: TestApp,
  ownerId: string,
  count: number,
  options: { versions?: number; visibility?: 'public' | 'private'; forkOf?: { workflowId: string; userId: string } } = {},
): Promise<string[]> {
  const prisma = t.database.db.prisma;
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const id = `wf_${suffix()}`;
    const versions = Array.from({ length: options.versions ?? 1 }, (_, v) => `1.${v}.0`);
    const described = { name: `Workflow ${i}`, description: '', category: '', tags: [] };
    const digestOf = (version: string) => versionDigest(id, ownerId, version, { ...described, manifest: MANIFEST as never });
    await prisma.workflow.create({
      data: {
        id,
        ownerId,
        name: described.name,
        visibility: options.visibility ?? 'private',
        currentVersion: versions[versions.length - 1]!,
        digest: digestOf(versions[versions.length - 1]!),
        manifest: MANIFEST,
        ...(options.forkOf
          ? { forkedFromWorkflowId: options.forkOf.workflowId, forkedFromUserId: options.forkOf.userId, forkedFromVersion: '1.0.0' }
          : {}),
        versions: {
          create: versions.map((version) => ({
            id: `wfv_${suffix()}`,
            version,
            ...described,
            digest: digestOf(version),
            manifest: MANIFEST,
          })),
        },
        libraryEntries: {
          create: {
            id: `lib_${suffix()}`,
            userId: ownerId,
            sourceType: options.forkOf ? 'forked' : 'owned',
            sourceUserId: options.forkOf?.userId ?? ownerId,
            enabledAdapters: ['adapter_one'],
            workflowVersion: versions[versions.length - 1]!,
          },
        },
      },
    });
    ids.push(id);
  }
  return ids;
}

/** `userId` subscribes to another user's workflow, which counts one subscriber more (as the library does). */
export async function seedSubscribe(t: TestApp, userId: string, workflowId: string): Promise<void> {
  await seedSubscription(t, userId, workflowId, { enabledAdapters: ['adapter_one'] });
  await t.database.db.prisma.workflow.update({ where: { id: workflowId }, data: { subscribersCount: { increment: 1 } } });
}

/** A deployment bundling `workflowIds`, with one usage row per day in `usageDays`. */
export async function seedDeployment(
  t: TestApp,
  ownerId: string,
  workflowIds: string[],
  usageDays: string[] = [],
  options: { allowAnonymous?: boolean } = {},
): Promise<string> {
  const id = `dep_${suffix()}`;
  await t.database.db.prisma.deployment.create({
    data: {
      id,
      ownerId,
      name: 'Seeded deployment',
      allowAnonymous: options.allowAnonymous ?? false,
      enabledAdapters: ['adapter_one'],
      workflows: { create: workflowIds.map((workflowId, position) => ({ workflowId, position })) },
      usage: { create: usageDays.map((day) => ({ adapter: 'adapter_one', day: new Date(`${day}T00:00:00Z`), count: 3 })) },
    },
  });
  return id;
}

export async function seedBillingRecords(t: TestApp, userId: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    await t.database.db.prisma.billingRecord.create({
      data: { id: `bill_${suffix()}`, userId, kind: 'invoice_paid', amount: 1200, currency: 'usd' },
    });
  }
}

export async function seedConnections(
  t: TestApp,
  userId: string,
  count: number,
  period = new Date().toISOString().slice(0, 7),
): Promise<void> {
  await t.database.db.prisma.usageCounter.upsert({
    where: { userId_metric_period: { userId, metric: 'connections', period } },
    create: { userId, metric: 'connections', period, count },
    update: { count },
  });
}
