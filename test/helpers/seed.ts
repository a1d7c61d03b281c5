import { randomBytes } from 'node:crypto';
import type { TestApp } from './app.js';
import { ADAPTERS } from '../../src/manifest/adapter-list.js';
import { sampleManifest } from './workflows.js';
import { versionDigest } from '../../src/workflows/digest.js';

/**
 * Rows the deployment tests need that other capabilities own (workflows, library entries, plans),
 * written with Prisma in the shapes those capabilities write them. Assertions never read through
 * here: they go through REST, GraphQL or MCP.
 */

/** A manifest that exercises every adapter's settings: plan → implement and tests in parallel → review. */
export function seedManifest(name = 'feature'): Record<string, any> {
  return sampleManifest({
    name,
    intent: 'Implement a feature with tests, then review it.',
    steps: [
      { id: 'plan', name: 'Plan the change', action: 'planning_agent' },
      { id: 'implement', name: 'Implement', action: 'code_agent', depends_on: ['plan'] },
      { id: 'write_tests', name: 'Write tests', action: 'test_agent', depends_on: ['plan'] },
      { id: 'review', name: 'Review', action: 'review_agent', depends_on: ['implement', 'write_tests'] },
    ],
    adapters: {
      adapter_one: { mode: 'sub_agent', config: { max_parallel_agents: 2, tools_per_step: { implement: ['Read', 'Edit'] } } },
      adapter_two: { mode: 'composer', config: { show_diff: true } },
      adapter_three: { mode: 'function_calling', config: { functions_per_step: { implement: ['read_file', 'write_file'] } } },
    },
  });
}

/** The user behind a token (created by this first request). */
export async function userIdOf(t: TestApp, token: string): Promise<string> {
  const res = await t.call('GET', '/v1/users/me', { token });
  if (res.status !== 200) throw new Error(`GET /v1/users/me failed: ${res.status} ${res.text}`);
  return res.body.data.userId;
}

const suffix = () => randomBytes(6).toString('hex');

export interface SeedWorkflowOptions {
  name?: string;
  description?: string;
  visibility?: 'public' | 'private';
  /** Versions oldest first, each with its manifest; the last is current. */
  versions?: { version: string; manifest: Record<string, any> }[];
}

/** A workflow owned by `ownerId`, with its version rows and owned library entry. */
export async function seedWorkflow(t: TestApp, ownerId: string, options: SeedWorkflowOptions = {}): Promise<string> {
  const prisma = t.database.db.prisma;
  const id = `wf_${suffix()}`;
  const versions = options.versions ?? [{ version: '1.0.0', manifest: seedManifest() }];
  const current = versions[versions.length - 1]!;
  const now = new Date();
  const described = {
    name: options.name ?? 'Feature pipeline',
    description: options.description ?? 'Ships a feature.',
    category: '',
    tags: [],
  };
  const digestOf = (v: { version: string; manifest: Record<string, any> }) =>
    versionDigest(id, ownerId, v.version, { ...described, manifest: v.manifest as never });
  await prisma.workflow.create({
    data: {
      id,
      ownerId,
      ...described,
      visibility: options.visibility ?? 'private',
      currentVersion: current.version,
      digest: digestOf(current),
      manifest: current.manifest,
      publishedAt: options.visibility === 'public' ? now : null,
      versions: {
        create: versions.map((v) => ({
          id: `wfv_${suffix()}`,
          version: v.version,
          ...described,
          digest: digestOf(v),
          manifest: v.manifest,
        })),
      },
      libraryEntries: {
        create: {
          id: `lib_${suffix()}`,
          userId: ownerId,
          sourceType: 'owned',
          sourceUserId: ownerId,
          enabledAdapters: [...ADAPTERS],
          workflowVersion: current.version,
        },
      },
    },
  });
  return id;
}

/** Puts another user's workflow into `userId`'s library as a subscription. */
export async function seedSubscription(
  t: TestApp,
  userId: string,
  workflowId: string,
  options: { version?: string; isActive?: boolean; enabledAdapters?: string[] } = {},
): Promise<void> {
  const prisma = t.database.db.prisma;
  const workflow = await prisma.workflow.findUniqueOrThrow({ where: { id: workflowId } });
  await prisma.libraryEntry.create({
    data: {
      id: `lib_${suffix()}`,
      userId,
      workflowId,
      sourceType: 'subscribed',
      sourceUserId: workflow.ownerId,
      isActive: options.isActive ?? true,
      enabledAdapters: options.enabledAdapters ?? [...ADAPTERS],
      workflowVersion: options.version ?? workflow.currentVersion,
    },
  });
}

export async function updateLibraryEntry(
  t: TestApp,
  userId: string,
  workflowId: string,
  data: { isActive?: boolean; enabledAdapters?: string[] },
): Promise<void> {
  await t.database.db.prisma.libraryEntry.update({ where: { userId_workflowId: { userId, workflowId } }, data });
}

export async function setVisibility(t: TestApp, workflowId: string, visibility: 'public' | 'private'): Promise<void> {
  await t.database.db.prisma.workflow.update({ where: { id: workflowId }, data: { visibility } });
}

/** The user's plan, as billing records it (a paid one keeps tests that create several deployments within its quotas). */
export async function seedPlan(
  t: TestApp,
  userId: string,
  plan: string,
  status = 'active',
  extra: { customerId?: string; subscriptionId?: string } = {},
): Promise<void> {
  await t.database.db.prisma.billingSubscription.upsert({
    where: { userId },
    create: { userId, plan, status, ...extra },
    update: { plan, status, ...extra },
  });
}
