import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import type { Adapter, ManifestAdapters, WorkflowManifest, WorkflowStep } from '../../src/manifest/types.js';
import {
  callTool,
  catalogFor,
  getPrompt,
  NAME_PATTERN,
  renderCatalog,
  type Catalog,
  type RenderableWorkflow,
  type RenderedTool,
} from '../../src/mcp/render/index.js';

// The strictest settings: if these accept the schemas, the lenient validators clients ship will too.
const ajv = new Ajv({ strict: true, allErrors: true });

const STEPS: WorkflowStep[] = [
  { id: 'plan', name: 'Plan the change', action: 'planning_agent', agent: 'planner', parameters: { depth: 'detailed' } },
  {
    id: 'implement',
    name: 'Implement the change',
    action: 'code_agent',
    depends_on: ['plan'],
    retry: { max_attempts: 3, backoff: 'exponential' },
  },
  { id: 'write_tests', name: 'Write the tests', action: 'test_agent', depends_on: ['plan'], parameters: { coverage: 90 } },
  { id: 'review', name: 'Review the result', action: 'review_agent', depends_on: ['implement', 'write_tests'], condition: 'tests pass' },
];

function manifest(adapters: ManifestAdapters = {}, steps: WorkflowStep[] = STEPS): WorkflowManifest {
  return {
    manifest_version: '1.0',
    name: 'feature-pipeline',
    intent: 'Implement a feature with tests, then review it.',
    context: { repo: 'acme/shop', language: 'typescript', framework: 'fastify', test_framework: 'vitest' },
    steps,
    outputs: { type: 'code', expected_files: ['src/feature.ts'] },
    adapters,
  };
}

function workflow(overrides: Partial<RenderableWorkflow> = {}, adapters: ManifestAdapters = {}): RenderableWorkflow {
  return {
    workflowId: 'wf_feature_0001',
    name: 'Feature pipeline',
    description: 'Plans, implements, tests and reviews a feature.',
    version: '1.2.0',
    manifest: manifest(adapters),
    ...overrides,
  };
}

const OTHER = workflow({ workflowId: 'wf_other_0002', name: 'Bug triage', description: 'Triages a bug.' });

function expectValid(schema: Record<string, unknown>, data: unknown): void {
  const validate = ajv.compile(schema);
  const ok = validate(data);
  expect(validate.errors ?? []).toEqual([]);
  expect(ok).toBe(true);
}

function expectAppError(fn: () => unknown, code: string, message: RegExp): AppError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    const err = e as AppError;
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
    return err;
  }
  throw new Error('expected an AppError');
}

function mainTool(catalog: Catalog): RenderedTool {
  const tool = catalog.tools.find((t) => t.stepId === null);
  if (!tool) throw new Error('no main tool');
  return tool;
}

/** Positions in the text: every step's heading must come after its dependencies' headings. */
function expectDependencyOrder(text: string): void {
  const at = (id: string) => text.indexOf(`: \`${id}\` (`);
  for (const id of ['plan', 'implement', 'write_tests', 'review']) expect(at(id)).toBeGreaterThan(-1);
  expect(at('plan')).toBeLessThan(at('implement'));
  expect(at('plan')).toBeLessThan(at('write_tests'));
  expect(at('implement')).toBeLessThan(at('review'));
  expect(at('write_tests')).toBeLessThan(at('review'));
}

const CASES: { adapter: Adapter; mode: string; adapters: ManifestAdapters; stepTools: boolean }[] = [
  { adapter: 'adapter_one', mode: 'sub_agent', adapters: {}, stepTools: false },
  { adapter: 'adapter_one', mode: 'direct', adapters: { adapter_one: { mode: 'direct' } }, stepTools: false },
  { adapter: 'adapter_two', mode: 'composer', adapters: {}, stepTools: false },
  { adapter: 'adapter_two', mode: 'direct', adapters: { adapter_two: { mode: 'direct' } }, stepTools: false },
  { adapter: 'adapter_two', mode: 'parallel', adapters: { adapter_two: { mode: 'parallel' } }, stepTools: false },
  { adapter: 'adapter_three', mode: 'function_calling', adapters: {}, stepTools: true },
  { adapter: 'adapter_three', mode: 'direct', adapters: { adapter_three: { mode: 'direct' } }, stepTools: false },
];

describe.each(CASES)('$adapter / $mode', ({ adapter, mode, adapters, stepTools }) => {
  const wf = workflow({}, adapters);
  const catalog = renderCatalog([wf], adapter);

  it('offers the expected tools and one prompt, with valid unique names', () => {
    const stepIds = catalog.tools.map((t) => t.stepId);
    expect(stepIds).toEqual(stepTools ? [null, 'plan', 'implement', 'write_tests', 'review'] : [null]);
    expect(catalog.prompts).toHaveLength(1);
    const names = [...catalog.tools, ...catalog.prompts].map((x) => x.name);
    for (const name of names) expect(name).toMatch(NAME_PATTERN);
    expect(new Set(names).size).toBe(names.length);
    expect(catalog.prompts[0]?.arguments).toEqual([{ name: 'task', description: expect.any(String), required: false }]);
  });

  it('keeps names stable across calls and when another workflow is added before it', () => {
    const again = renderCatalog([wf], adapter);
    expect(again).toEqual(catalog);
    const withOther = renderCatalog([OTHER, wf], adapter);
    const mine = withOther.tools.filter((t) => t.workflowId === wf.workflowId).map((t) => t.name);
    expect(mine).toEqual(catalog.tools.map((t) => t.name));
    expect(withOther.prompts[1]?.name).toBe(catalog.prompts[0]?.name);
    expect(withOther.tools[0]?.workflowId).toBe(OTHER.workflowId);
    const other = callTool(withOther, [OTHER, wf], withOther.tools[0]?.name ?? '-', { task: 'Triage #12' });
    expect(other.structuredContent.workflowId).toBe(OTHER.workflowId);
  });

  it('renders the plan in dependency order, says what runs in parallel, and validates against outputSchema', () => {
    const tool = mainTool(catalog);
    const result = callTool(catalog, [wf], tool.name, { task: 'Add pagination', context: { framework: 'express' } });
    const text = result.content[0]?.text ?? '';
    expect(result.content).toHaveLength(1);
    expect(text).toContain('# Workflow: Feature pipeline (version 1.2.0)');
    expect(text).toContain('Implement a feature with tests, then review it.');
    expect(text).toContain(`mode \`${mode}\``);
    expectDependencyOrder(text);
    expect(text).toContain('these 2 steps can run in parallel: `implement`, `write_tests`');
    expect(text).toContain('- retry: up to 3 attempts, backoff `exponential`');
    expect(text).toContain('run only if `tests pass`');
    expect(text).toContain('- parameters: `{"depth":"detailed"}`');
    expect(text).toContain('- agent: `planner`');

    const s = result.structuredContent;
    expectValid(tool.outputSchema, s);
    expect(s).toMatchObject({ workflowId: wf.workflowId, adapter, mode, version: '1.2.0', task: 'Add pagination' });
    expect(s.levels).toEqual([['plan'], ['implement', 'write_tests'], ['review']]);
    expect(s.context).toEqual({ repo: 'acme/shop', language: 'typescript', framework: 'express', test_framework: 'vitest' });
    const steps = s.steps as { id: string; parallelGroup: number; dependsOn: string[] }[];
    expect(steps.map((x) => x.id)).toEqual(['plan', 'implement', 'write_tests', 'review']);
    expect(steps.map((x) => x.parallelGroup)).toEqual([1, 2, 2, 3]);
  });

  it('validates the structured output without a task or context too', () => {
    const tool = mainTool(catalog);
    const result = callTool(catalog, [wf], tool.name, undefined);
    expectValid(tool.outputSchema, result.structuredContent);
    expect(result.structuredContent).not.toHaveProperty('task');
  });

  it('is deterministic', () => {
    const tool = mainTool(catalog);
    const a = callTool(catalog, [wf], tool.name, { task: 'x' });
    const b = callTool(renderCatalog([wf], adapter), [wf], tool.name, { task: 'x' });
    expect(b).toEqual(a);
  });

  it('rejects wrong argument types and unknown arguments', () => {
    const name = mainTool(catalog).name;
    expectAppError(() => callTool(catalog, [wf], name, { task: 42 }), 'VALIDATION_ERROR', /argument 'task' must be a string/);
    expectAppError(
      () => callTool(catalog, [wf], name, { context: 'acme/shop' }),
      'VALIDATION_ERROR',
      /argument 'context' must be an object/,
    );
    expectAppError(
      () => callTool(catalog, [wf], name, { context: { repo: 7 } }),
      'VALIDATION_ERROR',
      /argument 'context.repo' must be a string/,
    );
    const err = expectAppError(
      () => callTool(catalog, [wf], name, { task: 'x', force: true }),
      'VALIDATION_ERROR',
      /unknown argument 'force'/,
    );
    expect(err.details.errors).toEqual([expect.objectContaining({ argument: 'force', keyword: 'additionalProperties' })]);
    expectAppError(() => callTool(catalog, [wf], name, null), 'VALIDATION_ERROR', /arguments must be an object/);
    expectAppError(() => callTool(catalog, [wf], name, ['x']), 'VALIDATION_ERROR', /arguments must be an object/);
  });

  it('serves the same plan as a prompt addressed to the agent', () => {
    const prompt = catalog.prompts[0];
    if (!prompt) throw new Error('no prompt');
    const result = getPrompt(catalog, [wf], prompt.name, { task: 'Add pagination' });
    const plan = callTool(catalog, [wf], mainTool(catalog).name, { task: 'Add pagination' });
    expect(result.messages).toHaveLength(1);
    expect(result.messages[0]?.role).toBe('user');
    expect(result.messages[0]?.content.text).toContain(plan.content[0]?.text ?? '-');
    expect(result.messages[0]?.content.text).toMatch(/^Please run the workflow "Feature pipeline"/);
    expect(result.description).toBe(prompt.description);
  });
});

describe('adapter_one', () => {
  const run = (adapters: ManifestAdapters, steps?: WorkflowStep[]) => {
    const wf = { ...workflow(), manifest: manifest(adapters, steps) };
    const catalog = renderCatalog([wf], 'adapter_one');
    const tool = mainTool(catalog);
    const result = callTool(catalog, [wf], tool.name, {});
    expectValid(tool.outputSchema, result.structuredContent);
    return { text: result.content[0]?.text ?? '', s: result.structuredContent as Record<string, any> };
  };

  it('says a chain of steps as one, not as parallel groups of one', () => {
    const wf = workflow({}, {});
    wf.manifest = manifest({}, [
      { id: 'a', name: 'A', action: 'planning_agent' },
      { id: 'b', name: 'B', action: 'code_agent', depends_on: ['a'] },
      { id: 'c', name: 'C', action: 'review_agent', depends_on: ['b'] },
    ]);
    const chainCatalog = renderCatalog([wf], 'adapter_one');
    const main = chainCatalog.tools.find((t) => t.stepId === null)!;
    const chain = callTool(chainCatalog, [wf], main.name, { task: 'Do it' }).content[0]?.text ?? '';
    expect(chain).toContain('3 steps, one after another: each depends on the one before it.');
    expect(chain).not.toContain('parallel group');
  });

  it('splits a parallel group into batches of max_parallel_agents', () => {
    const { text, s } = run({ adapter_one: { config: { max_parallel_agents: 1 } } });
    expect(s.batches).toEqual([
      { batch: 1, parallelGroup: 1, delegate: 'sub_agent', steps: ['plan'] },
      { batch: 2, parallelGroup: 2, delegate: 'sub_agent', steps: ['implement'] },
      { batch: 3, parallelGroup: 2, delegate: 'sub_agent', steps: ['write_tests'] },
      { batch: 4, parallelGroup: 3, delegate: 'sub_agent', steps: ['review'] },
    ]);
    expect(s.maxParallelAgents).toBe(1);
    expect(text).toContain('Never run more than 1 sub-agent at once');
    expect(text).toContain('- Batch 2: one sub-agent for `implement`');
    expect(text).toContain('- Batch 3: one sub-agent for `write_tests`');
  });

  it('splits three parallel sub-agents into batches of two and one', () => {
    const steps: WorkflowStep[] = [
      STEPS[0] as WorkflowStep,
      { id: 'api', name: 'API', action: 'code_agent', depends_on: ['plan'] },
      { id: 'ui', name: 'UI', action: 'code_agent', depends_on: ['plan'] },
      { id: 'docs', name: 'Docs', action: 'docs_agent', depends_on: ['plan'] },
    ];
    const { text, s } = run({ adapter_one: { config: { max_parallel_agents: 2 } } }, steps);
    expect(s.batches.map((b: { steps: string[] }) => b.steps)).toEqual([['plan'], ['api', 'ui'], ['docs']]);
    expect(text).toContain('these 3 steps can run in parallel: `api`, `ui`, `docs`');
    expect(text).toContain('- Batch 2: 2 sub-agents at once for `api`, `ui`');
    expect(text).toContain('- Batch 3: one sub-agent for `docs`');
  });

  it('keeps a group in one batch when the limit allows it or there is none', () => {
    for (const config of [{ max_parallel_agents: 2 }, {}]) {
      const { text, s } = run({ adapter_one: { config } });
      expect(s.batches[1]).toEqual({ batch: 2, parallelGroup: 2, delegate: 'sub_agent', steps: ['implement', 'write_tests'] });
      expect(text).toContain('- Batch 2: 2 sub-agents at once for `implement`, `write_tests`');
    }
  });

  it('lists tools_per_step for each sub-agent', () => {
    const { text, s } = run({ adapter_one: { config: { tools_per_step: { implement: ['Read', 'Edit', 'Bash'] } } } });
    expect(text).toContain('- tools: `Read`, `Edit`, `Bash`');
    expect(text).toContain('Give a sub-agent only the tools listed for its step');
    expect(s.steps[1]).toMatchObject({ id: 'implement', tools: ['Read', 'Edit', 'Bash'], delegate: 'sub_agent' });
    expect(s.steps[0].tools).toEqual([]);
  });

  it('delegates only agent steps unless spawn_agents_per_step is set', () => {
    const steps: WorkflowStep[] = [...STEPS, { id: 'lint', name: 'Lint', action: 'shell_execute', depends_on: ['implement'] }];
    const plain = run({}, steps);
    const lint = (s: Record<string, any>) => s.steps.find((x: { id: string }) => x.id === 'lint');
    expect(lint(plain.s)).toMatchObject({ delegate: 'main_agent' });
    expect(plain.text).toContain('you run `lint` yourself');
    const all = run({ adapter_one: { config: { spawn_agents_per_step: true } } }, steps);
    expect(lint(all.s)).toMatchObject({ delegate: 'sub_agent' });
    expect(all.s.spawnAgentsPerStep).toBe(true);
  });

  it('has one agent run every step in direct mode', () => {
    const { text, s } = run({ adapter_one: { mode: 'direct', config: { max_parallel_agents: 1, tools_per_step: { review: ['Read'] } } } });
    expect(text).toContain('do not spawn sub-agents');
    expect(text).not.toContain('Batch');
    expect(s.steps.every((x: { delegate: string }) => x.delegate === 'main_agent')).toBe(true);
    expect(text).toContain('- tools: `Read`');
  });
});

describe('adapter_two', () => {
  const run = (adapters: ManifestAdapters) => {
    const wf = { ...workflow(), manifest: manifest(adapters) };
    const catalog = renderCatalog([wf], 'adapter_two');
    const tool = mainTool(catalog);
    const result = callTool(catalog, [wf], tool.name, {});
    expectValid(tool.outputSchema, result.structuredContent);
    return { text: result.content[0]?.text ?? '', s: result.structuredContent as Record<string, any> };
  };

  it('drives the composer with diff and approval by default', () => {
    const { text, s } = run({});
    expect(text).toContain('Open the composer and carry out the whole workflow in one composer session');
    expect(text).toContain('Show the diff before applying any edit.');
    expect(text).toContain("wait for the user's approval before applying them");
    expect(text).toContain('- edits files: show the diff, then apply after the user approves');
    expect(s.composer).toEqual({ useComposer: true, showDiff: true, autoApply: false });
    expect(s.editorTasks).toEqual([{ task: 1, steps: ['plan', 'implement', 'write_tests', 'review'], startsAfter: [] }]);
  });

  it('follows use_composer, show_diff and auto_apply', () => {
    const { text, s } = run({ adapter_two: { mode: 'composer', config: { use_composer: false, show_diff: false, auto_apply: true } } });
    expect(text).toContain('Do not use the composer');
    expect(text).toContain('Apply edits automatically');
    expect(text).not.toContain('Show the diff before applying');
    expect(s.composer).toEqual({ useComposer: false, showDiff: false, autoApply: true });
  });

  it('makes each parallel group a set of composer tasks started together', () => {
    const { text, s } = run({ adapter_two: { mode: 'parallel' } });
    expect(s.editorTasks).toEqual([
      { task: 1, steps: ['plan'], startsAfter: [] },
      { task: 2, steps: ['implement'], startsAfter: [1] },
      { task: 3, steps: ['write_tests'], startsAfter: [1] },
      { task: 4, steps: ['review'], startsAfter: [2, 3] },
    ]);
    expect(text).toContain('Composer tasks 2, 3 start together once task 1 has finished: `implement`, `write_tests`.');
  });

  it('edits step by step without the composer in direct mode', () => {
    const { text, s } = run({ adapter_two: { mode: 'direct', config: { use_composer: true } } });
    expect(text).toContain('Work step by step without the composer');
    expect(s.composer.useComposer).toBe(false);
    expect(s.editorTasks.map((t: { startsAfter: number[] }) => t.startsAfter)).toEqual([[], [1], [2], [3]]);
  });
});

describe('adapter_three', () => {
  const adapters: ManifestAdapters = { adapter_three: { config: { functions_per_step: { implement: ['read_file', 'write_file'] } } } };
  const wf = workflow({}, adapters);
  const catalog = renderCatalog([wf], 'adapter_three');

  it('offers every step as a function tool listing its functions', () => {
    const implement = catalog.tools.find((t) => t.stepId === 'implement');
    expect(implement?.description).toContain('Functions: read_file, write_file.');
    expect(implement?.description).toContain('Call after: plan.');
    expect(implement?.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
    expect(Object.keys((implement?.inputSchema.properties ?? {}) as object)).toEqual(['task', 'context', 'inputs']);
  });

  it('lists the step tools in call order in the main plan', () => {
    const result = callTool(catalog, [wf], mainTool(catalog).name, {});
    const text = result.content[0]?.text ?? '';
    expect(text).toContain('- functions: `read_file`, `write_file`');
    const implementTool = catalog.tools.find((t) => t.stepId === 'implement')?.name ?? '-';
    expect(text).toContain(`- call: \`${implementTool}\``);
    const steps = result.structuredContent.steps as { callOrder: number; tool: string }[];
    expect(steps.map((x) => x.callOrder)).toEqual([1, 2, 3, 4]);
    expect(steps.map((x) => x.tool)).toEqual(catalog.tools.slice(1).map((t) => t.name));
  });

  it('returns one step with its dependencies and functions from a step tool', () => {
    const tool = catalog.tools.find((t) => t.stepId === 'implement');
    if (!tool) throw new Error('no step tool');
    const result = callTool(catalog, [wf], tool.name, { task: 'Add pagination', inputs: { plan: 'Use cursor pagination.' } });
    expectValid(tool.outputSchema, result.structuredContent);
    const s = result.structuredContent as Record<string, any>;
    expect(s.step).toMatchObject({ id: 'implement', functions: ['read_file', 'write_file'], dependsOn: ['plan'] });
    expect(s.dependencies).toEqual([{ id: 'plan', name: 'Plan the change', tool: catalog.tools[1]?.name }]);
    expect(s.dependents.map((d: { id: string }) => d.id)).toEqual(['review']);
    expect(s.inputs).toEqual({ plan: 'Use cursor pagination.' });
    const text = result.content[0]?.text ?? '';
    expect(text).toContain('Call only these functions for it: read_file, write_file.');
    expect(text).not.toContain('write_tests`');
    expectAppError(() => callTool(catalog, [wf], tool.name, { inputs: 'plan' }), 'VALIDATION_ERROR', /argument 'inputs' must be an object/);
  });

  it('gives one sequential plan and no step tools in direct mode', () => {
    const direct = workflow({}, { adapter_three: { mode: 'direct', config: adapters.adapter_three?.config ?? {} } });
    const c = renderCatalog([direct], 'adapter_three');
    expect(c.tools).toHaveLength(1);
    const result = callTool(c, [direct], c.tools[0]?.name ?? '-', {});
    const text = result.content[0]?.text ?? '';
    expect(text).toContain('as a single sequential plan');
    expect(text).toContain('- functions: `read_file`, `write_file`');
    expect(text).not.toContain('- call:');
    expectValid(c.tools[0]?.outputSchema ?? {}, result.structuredContent);
  });
});

describe('names', () => {
  it('differ for two workflows with the same name', () => {
    const a = workflow({ workflowId: 'wf_a' });
    const b = workflow({ workflowId: 'wf_b' });
    const catalog = renderCatalog([a, b], 'adapter_three');
    const names = [...catalog.tools, ...catalog.prompts].map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect(catalog.tools[0]?.name).not.toBe(catalog.tools[5]?.name);
    expect(catalog.tools[0]?.name.startsWith('feature_pipeline_')).toBe(true);
  });

  it('stay within 48 characters for a very long workflow name and long step ids', () => {
    const longStep = 'a_very_long_step_identifier_that_goes_on_and_on';
    const steps: WorkflowStep[] = [
      { id: longStep, name: 'One', action: 'code_agent' },
      { id: `${longStep}_too`, name: 'Two', action: 'code_agent' },
    ];
    const wf = { ...workflow({ name: 'An Extremely Long Workflow Name '.repeat(6) }), manifest: manifest({}, steps) };
    const catalog = renderCatalog([wf], 'adapter_three');
    const names = [...catalog.tools, ...catalog.prompts].map((t) => t.name);
    for (const name of names) {
      expect(name.length).toBeLessThanOrEqual(48);
      expect(name).toMatch(NAME_PATTERN);
    }
    expect(new Set(names).size).toBe(names.length);
    expect(catalog.tools[0]?.name.startsWith('an_extremely_long_workflow_name')).toBe(true);
  });

  it('survive names with no ASCII letters and fold accents', () => {
    const catalog = renderCatalog([workflow({ name: '工作流' }), workflow({ workflowId: 'x', name: 'Révision rapide' })], 'adapter_one');
    expect(catalog.tools[0]?.name).toMatch(/^workflow_[0-9a-f]{8}$/);
    expect(catalog.tools[1]?.name).toMatch(/^revision_rapide_[0-9a-f]{8}$/);
  });

  it('reject the same workflow twice in a deployment', () => {
    expectAppError(() => renderCatalog([workflow(), workflow()], 'adapter_one'), 'INTERNAL_ERROR', /appears more than once/);
  });
});

describe('errors', () => {
  const wf = workflow();
  const catalog = renderCatalog([wf], 'adapter_one');

  it('rejects an unknown tool', () => {
    const err = expectAppError(() => callTool(catalog, [wf], 'nope', {}), 'VALIDATION_ERROR', /^unknown tool 'nope'$/);
    expect(err.details).toEqual({ fields: [], tool: 'nope' });
  });

  it('rejects an unknown prompt and bad prompt arguments', () => {
    expectAppError(() => getPrompt(catalog, [wf], 'nope', {}), 'VALIDATION_ERROR', /^unknown prompt 'nope'$/);
    const name = catalog.prompts[0]?.name ?? '-';
    expectAppError(() => getPrompt(catalog, [wf], name, { task: 5 }), 'VALIDATION_ERROR', /argument 'task' must be a string/);
    expectAppError(() => getPrompt(catalog, [wf], name, { repo: 'x' }), 'VALIDATION_ERROR', /unknown argument 'repo'/);
  });

  it('rejects an unknown adapter', () => {
    expectAppError(() => renderCatalog([wf], 'adapter_nine' as Adapter), 'VALIDATION_ERROR', /unknown adapter 'adapter_nine'/);
  });

  it('hands out copies, so editing a result leaves the manifest alone', () => {
    const w = workflow({ workflowId: 'wf_copy' });
    const c = renderCatalog([w], 'adapter_one');
    const s = callTool(c, [w], c.tools[0]?.name ?? '-', {}).structuredContent as Record<string, any>;
    s.steps[0].parameters.depth = 'changed';
    s.context.repo = 'changed';
    expect(w.manifest.steps[0]?.parameters).toEqual({ depth: 'detailed' });
    expect(w.manifest.context?.repo).toBe('acme/shop');
  });

  it('keeps user text from breaking the Markdown structure', () => {
    const steps: WorkflowStep[] = [
      { id: 'plan', name: 'Plan\n# injected heading', action: 'planning_agent', parameters: { note: 'a `tick`' } },
    ];
    const w = { ...workflow({ workflowId: 'wf_md' }), manifest: manifest({}, steps) };
    const c = renderCatalog([w], 'adapter_one');
    const text = callTool(c, [w], c.tools[0]?.name ?? '-', {}).content[0]?.text ?? '';
    expect(text).not.toMatch(/^# injected heading/m);
    expect(text).toContain('- parameters: ``{"note":"a `tick`"}``');
  });
});

describe('catalogFor', async () => {
  it('renders a catalog once per adapter and workflow identity, version, name and description', async () => {
    const wf = workflow({ workflowId: 'wf_cache_0001' });
    const first = await catalogFor([wf], 'adapter_three');
    expect(first).toEqual(renderCatalog([wf], 'adapter_three'));
    expect(await catalogFor([{ ...wf }], 'adapter_three')).toBe(first);
    expect(await catalogFor([wf], 'adapter_one')).not.toBe(first);
    expect((await catalogFor([wf], 'adapter_one')).adapter).toBe('adapter_one');
    const renamed = await catalogFor([{ ...wf, name: 'Renamed pipeline' }], 'adapter_three');
    expect(renamed).not.toBe(first);
    expect(renamed.tools[0]?.name).not.toBe(first.tools[0]?.name);
    // Named as before again: the catalog of the original name, not the renamed one.
    expect((await catalogFor([wf], 'adapter_three')).tools[0]?.name).toBe(first.tools[0]?.name);
    const described = await catalogFor([{ ...wf, description: 'Another description.' }], 'adapter_three');
    expect(described.tools[0]?.description).not.toBe(first.tools[0]?.description);
    // Its author's names and its digest are compared too, field by field.
    const provenance = { authorDisplayName: 'Ada', authorHandle: 'user-abcdefgh', digest: 'sha256:aa', thirdParty: true };
    const byAda = await catalogFor([{ ...wf, provenance }], 'adapter_three');
    expect(await catalogFor([{ ...wf, provenance: { ...provenance } }], 'adapter_three')).toBe(byAda);
    for (const changed of [
      { authorDisplayName: null },
      { authorHandle: 'user-bcdefghi' },
      { digest: 'sha256:bb' },
      { thirdParty: false },
    ]) {
      const other = await catalogFor([{ ...wf, provenance: { ...provenance, ...changed } }], 'adapter_three');
      expect(other, JSON.stringify(changed)).not.toBe(byAda);
      expect(await catalogFor([{ ...wf, provenance }], 'adapter_three'), JSON.stringify(changed)).not.toBe(other);
    }
    const steps = STEPS.slice(0, 1);
    const newer = await catalogFor([{ ...wf, version: '1.3.0', manifest: manifest({}, steps) }], 'adapter_three');
    expect(newer.tools.map((t) => t.stepId)).toEqual([null, 'plan']);
    expect(await catalogFor([wf, OTHER], 'adapter_three')).not.toBe(await catalogFor([OTHER, wf], 'adapter_three'));
  });

  it('validates tool arguments of a cached catalog like a fresh one', async () => {
    const wf = workflow({ workflowId: 'wf_cache_0002' });
    const c = await catalogFor([wf], 'adapter_one');
    const name = c.tools[0]?.name ?? '-';
    expect(callTool(await catalogFor([wf], 'adapter_one'), [wf], name, { task: 'Add search' }).structuredContent.task).toBe('Add search');
    const cached = await catalogFor([wf], 'adapter_one');
    expectAppError(() => callTool(cached, [wf], name, { task: 42 }), 'VALIDATION_ERROR', /task/);
  });
});
