import type { TestApp } from './app.js';

/** A small valid manifest: plan → code and tests in parallel → review. */
export function sampleManifest(overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    manifest_version: '1.0',
    name: 'Plan, build, review',
    intent: 'Plan a change, implement it with tests, then review it',
    context: { language: 'typescript', test_framework: 'vitest' },
    steps: [
      { id: 'plan', name: 'Plan the change', action: 'planning_agent' },
      { id: 'code', name: 'Write the code', action: 'code_agent', depends_on: ['plan'] },
      { id: 'tests', name: 'Write the tests', action: 'generate_tests', depends_on: ['plan'] },
      {
        id: 'review',
        name: 'Review',
        action: 'review_agent',
        depends_on: ['code', 'tests'],
        retry: { max_attempts: 2, backoff: 'exponential' },
      },
    ],
    ...overrides,
  };
}

export interface WorkflowBody {
  name?: string;
  description?: string;
  manifest?: unknown;
  visibility?: 'public' | 'private';
  category?: string;
  tags?: string[];
  allowForks?: boolean;
  /** The team it is made in (the caller is an owner or admin of it). */
  teamId?: string;
}

/** Creates a workflow through the REST face and returns its data (asserting 201). */
export async function createWorkflow(t: TestApp, token: string, body: WorkflowBody = {}): Promise<Record<string, any>> {
  const res = await t.call('POST', '/v1/workflows', {
    token,
    body: {
      name: 'Review pipeline',
      description: 'Plans, codes, tests and reviews',
      manifest: sampleManifest(),
      category: 'quality',
      tags: ['review', 'tests'],
      ...body,
    },
  });
  if (res.status !== 201) throw new Error(`create workflow failed: ${res.status} ${res.text}`);
  return res.body.data;
}

/** The caller's library entries through REST (the first 100), asserting 200. */
export async function libraryOf(t: TestApp, token: string): Promise<any[]> {
  const res = await t.call('GET', '/v1/library?limit=100', { token });
  if (res.status !== 200) throw new Error(`library read failed: ${res.status} ${res.text}`);
  return res.body.data;
}

/** The caller's library entry for one workflow, or undefined. */
export async function libraryEntry(t: TestApp, token: string, workflowId: string): Promise<any> {
  return (await libraryOf(t, token)).find((e) => e.workflowId === workflowId);
}
