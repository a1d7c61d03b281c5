/**
 * adapter_three: generic function-calling clients. In `function_calling` mode every step is
 * also a tool of its own, so the model drives the workflow by calling them in order; in
 * `direct` mode it gets one sequential plan. functions_per_step names the functions a
 * step may call in both modes.
 */
import type { WorkflowManifest } from '../../manifest/types.js';
import { closingInstructions, code, codeList, commonStepLines, numbered, oneLine, preamble, renderDocument } from './markdown.js';
import { stepToolName } from './names.js';
import { baseStepProperties, baseStepStructured, baseStructured, basePlanProperties, planSchema, stepSchema } from './plan.js';
import { anyObject, arr, int, obj, str, type Schema } from './schemas.js';
import type { AdapterRenderer, PlanInput, PlanStep, RenderedPlan } from './types.js';
import { namingName } from './untrusted.js';

type Mode = 'function_calling' | 'direct';

interface Settings {
  mode: Mode;
  functionsPerStep: Record<string, string[]>;
}

function settingsOf(manifest: WorkflowManifest): Settings {
  const section = manifest.adapters?.adapter_three;
  return { mode: section?.mode ?? 'function_calling', functionsPerStep: section?.config?.functions_per_step ?? {} };
}

function toolOf(settings: Settings, input: PlanInput, stepId: string): string | undefined {
  return settings.mode === 'function_calling' ? stepToolName(namingName(input.workflow), input.workflow.workflowId, stepId) : undefined;
}

function functionsOf(settings: Settings, stepId: string): string[] {
  return [...(settings.functionsPerStep[stepId] ?? [])];
}

function stepStructured(settings: Settings, input: PlanInput, step: PlanStep, callOrder: number): Record<string, unknown> {
  const tool = toolOf(settings, input, step.id);
  return {
    ...baseStepStructured(step),
    callOrder,
    ...(tool !== undefined ? { tool } : {}),
    functions: functionsOf(settings, step.id),
  };
}

function functionsLine(settings: Settings, stepId: string): string {
  const fns = functionsOf(settings, stepId);
  return `- functions: ${fns.length > 0 ? codeList(fns) : 'none listed'}`;
}

function instructionsOf(settings: Settings, input: PlanInput): string[] {
  const listsFunctions = Object.keys(settings.functionsPerStep).length > 0;
  const lines =
    settings.mode === 'function_calling'
      ? [
          'Work through the steps in the call order below. For each step, call its tool, passing the results of the steps it depends on as `inputs`, then carry out the brief the tool returns.',
          'Step tools of one group do not depend on each other and may be called in parallel; call a group only after every step of the previous group is done.',
        ]
      : [
          'Carry out the steps one after another in the order listed, as a single sequential plan; finish each step before starting the next.',
          'Steps of one group do not depend on each other, so their order inside the group is free.',
        ];
  if (listsFunctions) lines.push('While on a step, call only the functions listed for it.');
  return [...lines, ...closingInstructions(input.steps)];
}

function renderPlan(input: PlanInput): RenderedPlan {
  const settings = settingsOf(input.workflow.manifest);
  const order = new Map(input.steps.map((s, i) => [s.id, i + 1] as const));
  const instructions = instructionsOf(settings, input);
  const text = renderDocument(input, {
    lead: lead(settings.mode),
    instructions,
    stepLines: (step) => {
      const tool = toolOf(settings, input, step.id);
      const lines = commonStepLines(step);
      if (tool !== undefined) lines.push(`- call: ${code(tool)}`);
      lines.push(functionsLine(settings, step.id));
      return lines;
    },
  });
  const structured: Record<string, unknown> = {
    ...baseStructured(input.base),
    steps: input.steps.map((s) => stepStructured(settings, input, s, order.get(s.id) ?? 0)),
    instructions,
  };
  return { text, structured };
}

function related(settings: Settings, input: PlanInput, ids: readonly string[]): { id: string; name: string; tool?: string }[] {
  const byId = new Map(input.steps.map((s) => [s.id, s] as const));
  return ids.flatMap((id) => {
    const s = byId.get(id);
    if (!s) return [];
    const tool = toolOf(settings, input, id);
    return [{ id, name: s.name, ...(tool !== undefined ? { tool } : {}) }];
  });
}

function relatedLine(r: { id: string; name: string; tool?: string }): string {
  return `- ${code(r.id)} (${oneLine(r.name)})${r.tool !== undefined ? `, tool ${code(r.tool)}` : ''}`;
}

function renderStep(input: PlanInput, stepId: string): RenderedPlan {
  const settings = settingsOf(input.workflow.manifest);
  const index = input.steps.findIndex((s) => s.id === stepId);
  const step = input.steps[index];
  if (!step) throw new Error(`step '${stepId}' is not in workflow '${input.workflow.workflowId}'`);
  const dependencies = related(settings, input, step.dependsOn);
  const dependents = related(
    settings,
    input,
    input.steps.filter((s) => s.dependsOn.includes(stepId)).map((s) => s.id),
  );
  const inputs = structuredClone(input.args.inputs ?? {});
  const fns = functionsOf(settings, stepId);
  const instructions = [
    `Do this step only: ${oneLine(step.name)} (${step.action}).`,
    fns.length > 0
      ? `Call only these functions for it: ${fns.join(', ')}.`
      : 'No functions are listed for this step; use what its action needs.',
    dependencies.length > 0
      ? "Use the results of the steps it depends on, given in `inputs`; when one is missing, call that step's tool first."
      : 'It depends on no other step, so it can start right away.',
    dependents.length > 0
      ? `Return a result the next steps can take as their inputs: ${dependents.map((d) => d.id).join(', ')}.`
      : "It is a final step: return its result as part of the workflow's outcome.",
  ];
  if (step.condition !== undefined) instructions.push('Check its condition first; when it is false, skip the step and say so.');
  if (step.retry !== undefined) instructions.push('If it fails, try again as its retry setting allows before reporting the failure.');
  const { base } = input;
  const out = preamble(
    base,
    `Workflow: ${base.name} (version ${base.version}), step ${step.id}`,
    'one step of the workflow, called as a function.',
  );
  out.push('', `## Step ${index + 1} of ${input.steps.length}: ${code(step.id)} (${oneLine(step.name)})`, ...commonStepLines(step));
  out.push(`- group: ${step.parallelGroup} of ${base.levels.length}`, functionsLine(settings, stepId));
  out.push('', '## Depends on', ...(dependencies.length > 0 ? dependencies.map(relatedLine) : ['nothing']));
  if (dependents.length > 0) out.push('', '## Needed by', ...dependents.map(relatedLine));
  // Never a code span at the start of a line: a fence of three backticks there would open a code block.
  out.push('', '## Inputs', Object.keys(inputs).length > 0 ? `As JSON: ${code(JSON.stringify(inputs))}` : 'none given');
  out.push('', '## How to run', ...numbered(instructions));
  const structured: Record<string, unknown> = {
    workflowId: base.workflowId,
    name: base.name,
    version: base.version,
    adapter: base.adapter,
    mode: base.mode,
    intent: base.intent,
    ...(base.task !== undefined ? { task: base.task } : {}),
    context: base.context,
    step: stepStructured(settings, input, step, index + 1),
    dependencies,
    dependents,
    inputs,
    instructions,
  };
  return { text: `${out.join('\n')}\n`, structured };
}

function stepExtras(mode: string): { extra: Record<string, Schema>; required: string[] } {
  const extra: Record<string, Schema> = {
    callOrder: int('1-based position in the order the steps are carried out.'),
    tool: str('The tool that runs this step; present in function_calling mode.'),
    functions: arr(str(), 'Functions the step may call; empty when the manifest lists none.'),
  };
  return { extra, required: mode === 'function_calling' ? ['callOrder', 'tool', 'functions'] : ['callOrder', 'functions'] };
}

function outputSchema(mode: string): Schema {
  const { extra, required } = stepExtras(mode);
  return planSchema('adapter_three', mode, stepSchema(extra, required), {});
}

function stepOutputSchema(mode: string): Schema {
  const { extra, required } = stepExtras(mode);
  const plan = basePlanProperties('adapter_three', mode);
  const stepProps = baseStepProperties();
  const relatedSchema = obj({ id: str(), name: str(), tool: str() }, ['id', 'name']);
  const shared = ['workflowId', 'name', 'version', 'adapter', 'mode', 'intent', 'task', 'context'];
  return obj(
    {
      ...Object.fromEntries(shared.map((k) => [k, plan.properties[k] ?? {}])),
      step: obj({ ...stepProps.properties, ...extra }, [...stepProps.required, ...required]),
      dependencies: arr(relatedSchema, 'Steps that must be done before this one.'),
      dependents: arr(relatedSchema, 'Steps that wait for this one.'),
      inputs: anyObject('The inputs passed to this call.'),
      instructions: arr(str()),
    },
    [
      'workflowId',
      'name',
      'version',
      'adapter',
      'mode',
      'intent',
      'context',
      'step',
      'dependencies',
      'dependents',
      'inputs',
      'instructions',
    ],
  );
}

function lead(mode: string): string {
  return mode === 'function_calling'
    ? 'each step is a tool of its own; call them in the order below.'
    : 'one sequential plan, carried out step after step.';
}

/** The step tool's description lists the step's functions so a model sees them before calling it. */
function describeStep(workflowName: string, manifest: WorkflowManifest, step: PlanStep): string {
  const fns = functionsOf(settingsOf(manifest), step.id);
  const after = step.dependsOn.length > 0 ? ` Call after: ${step.dependsOn.join(', ')}.` : ' Can be called first.';
  const functions = fns.length > 0 ? ` Functions: ${fns.join(', ')}.` : '';
  return `Step ${step.id} of workflow ${oneLine(workflowName)}: ${oneLine(step.name)} (action ${step.action}).${after}${functions} Returns the step's brief.`;
}

export const adapterThree: AdapterRenderer = {
  adapter: 'adapter_three',
  modeOf: (manifest) => settingsOf(manifest).mode,
  hasStepTools: (mode) => mode === 'function_calling',
  summary: (mode) => lead(mode),
  outputSchema,
  renderPlan,
  steps: { outputSchema: stepOutputSchema, render: renderStep, describe: describeStep },
};
