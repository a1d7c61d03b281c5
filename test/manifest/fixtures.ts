import type { WorkflowManifest } from '../../src/manifest/types.js';
import { validateManifest } from '../../src/manifest/validate.js';
import { expect } from 'vitest';

/** A manifest that uses every property of the format. */
export function completeManifest(): WorkflowManifest {
  return {
    $schema: 'https://workflows.example.com/schemas/manifest/v1.0',
    manifest_version: '1.0',
    name: 'Add rate limiting',
    intent: 'Add per-user rate limiting to the public API and cover it with tests',
    context: {
      repo: 'github.com/example/api',
      language: 'typescript',
      framework: 'fastify',
      test_framework: 'vitest',
      node_version: 24,
      owners: ['platform-team'],
    },
    steps: [
      {
        id: 'analyze',
        name: 'Analyze the request path',
        action: 'analyze_code',
        agent: 'code-reader',
        parameters: { paths: ['src/routes'], depth: 2 },
      },
      { id: 'design', name: 'Design the limiter', action: 'design_architecture', depends_on: ['analyze'] },
      {
        id: 'implement',
        name: 'Implement the limiter',
        action: 'generate_code',
        depends_on: ['design'],
        retry: { max_attempts: 3, backoff: 'exponential' },
      },
      { id: 'write_tests', name: 'Write tests', action: 'generate_tests', depends_on: ['design'] },
      {
        id: 'run_tests',
        name: 'Run the tests',
        action: 'execute_command',
        depends_on: ['implement', 'write_tests'],
        parameters: { command: 'npm test' },
        condition: "steps.implement.status == 'success'",
        retry: { max_attempts: 2 },
      },
      { id: 'commit', name: 'Review and commit', action: 'review_and_commit', depends_on: ['run_tests'] },
    ],
    outputs: {
      type: 'mixed',
      expected_files: ['src/limits/rate-limiter.ts', 'test/rate-limiter.test.ts'],
      schema: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
    },
    adapters: {
      adapter_one: {
        mode: 'sub_agent',
        config: {
          spawn_agents_per_step: true,
          max_parallel_agents: 2,
          tools_per_step: { analyze: ['Read', 'Grep'], run_tests: ['Bash'] },
        },
      },
      adapter_two: { mode: 'composer', config: { use_composer: true, show_diff: true, auto_apply: false } },
      adapter_three: { mode: 'function_calling', config: { functions_per_step: { implement: ['write_file'] } } },
    },
  };
}

/** A two-step manifest to build bad inputs from, so each test changes one thing. */
export function minimalManifest(): Record<string, unknown> & { steps: Array<Record<string, unknown>> } {
  return {
    manifest_version: '1.0',
    name: 'Fix a bug',
    intent: 'Fix the failing login test',
    steps: [
      { id: 'build', name: 'Build', action: 'code_agent' },
      { id: 'test', name: 'Test', action: 'test_agent', depends_on: ['build'] },
    ],
  };
}

/** The errors of an input that must fail, as [path, code] pairs. */
export function errorsOf(input: unknown): Array<[string, string]> {
  const result = validateManifest(input);
  expect(result.valid).toBe(false);
  return result.errors.map((e) => [e.path, e.code]);
}

/** The single error of an input that must fail with exactly one problem. */
export function onlyError(input: unknown) {
  const result = validateManifest(input);
  expect(result.valid).toBe(false);
  expect(result.errors).toHaveLength(1);
  return result.errors[0]!;
}
