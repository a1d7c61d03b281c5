/**
 * adapter_one: agents that can spawn sub-agents (Claude Code-like). In `sub_agent` mode the
 * connected agent orchestrates and hands steps to sub-agents in bounded batches; in `direct`
 * mode it runs every step itself.
 */
import type { WorkflowManifest } from '../../manifest/types.js';
import { closingInstructions, code, codeList, commonStepLines, renderDocument } from './markdown.js';
import { baseStepStructured, baseStructured, isAgentAction, planSchema, stepSchema } from './plan.js';
import { arr, bool, int, obj, oneOf, str, type Schema } from './schemas.js';
import type { AdapterRenderer, PlanInput, PlanStep, RenderedPlan } from './types.js';

type Mode = 'sub_agent' | 'direct';
type Delegate = 'sub_agent' | 'main_agent';

interface Settings {
  mode: Mode;
  spawnAgentsPerStep: boolean;
  maxParallelAgents?: number;
  toolsPerStep: Record<string, string[]>;
}

interface Batch {
  batch: number;
  parallelGroup: number;
  delegate: Delegate;
  steps: string[];
}

function settingsOf(manifest: WorkflowManifest): Settings {
  const section = manifest.adapters?.adapter_one;
  const config = section?.config ?? {};
  const max = config.max_parallel_agents;
  const settings: Settings = {
    mode: section?.mode ?? 'sub_agent',
    spawnAgentsPerStep: config.spawn_agents_per_step === true,
    toolsPerStep: config.tools_per_step ?? {},
  };
  // A limit below one would stall the plan; treat it like no limit rather than fail a call.
  if (typeof max === 'number' && Number.isFinite(max) && max >= 1) settings.maxParallelAgents = Math.floor(max);
  return settings;
}

function delegateOf(settings: Settings, step: PlanStep): Delegate {
  if (settings.mode === 'direct') return 'main_agent';
  return settings.spawnAgentsPerStep || isAgentAction(step.action) ? 'sub_agent' : 'main_agent';
}

/**
 * A batch is what runs at the same time: up to the limit of a level's sub-agents together,
 * then the level's remaining steps one by one by the orchestrator, which cannot do two things at once.
 */
function batchesOf(settings: Settings, input: PlanInput): Batch[] {
  const out: Batch[] = [];
  input.base.levels.forEach((_, index) => {
    const parallelGroup = index + 1;
    const group = input.steps.filter((s) => s.parallelGroup === parallelGroup);
    const delegated = group.filter((s) => delegateOf(settings, s) === 'sub_agent').map((s) => s.id);
    const own = group.filter((s) => delegateOf(settings, s) === 'main_agent').map((s) => s.id);
    const size = settings.maxParallelAgents ?? Math.max(1, delegated.length);
    for (let i = 0; i < delegated.length; i += size) {
      out.push({ batch: out.length + 1, parallelGroup, delegate: 'sub_agent', steps: delegated.slice(i, i + size) });
    }
    for (const id of own) out.push({ batch: out.length + 1, parallelGroup, delegate: 'main_agent', steps: [id] });
  });
  return out;
}

function instructionsOf(settings: Settings, input: PlanInput, batches: readonly Batch[]): string[] {
  const listsTools = Object.keys(settings.toolsPerStep).length > 0;
  if (settings.mode === 'direct') {
    const lines = [
      'Run every step yourself, one at a time, in the order listed below; do not spawn sub-agents.',
      'Steps of one group do not depend on each other, so their order inside the group is free; finish a group before starting the next.',
    ];
    if (listsTools) lines.push('While on a step, use only the tools listed for it.');
    return [...lines, ...closingInstructions(input.steps)];
  }
  const limit = settings.maxParallelAgents;
  const lines = [
    'You are the orchestrator. Work through the batches in order and wait for every step of a batch to finish before starting the next.',
    "For each step run by a sub-agent, spawn one sub-agent (for example with the Task tool). Brief it with the workflow intent, the task and that step's section below, and ask it to report back what it did and what later steps need.",
    limit === 1
      ? 'Never run more than 1 sub-agent at once; the batches below already respect this limit.'
      : `${limit !== undefined ? `Never run more than ${limit} sub-agents at once; the batches below already respect this limit. ` : ''}Launch the sub-agents of one batch together (in one message) so they run in parallel.`,
  ];
  if (listsTools) lines.push('Give a sub-agent only the tools listed for its step; a step without a list gets the tools its action needs.');
  if (batches.some((b) => b.delegate === 'main_agent')) lines.push('Steps run by "you" are yours to do directly, in their own batch.');
  lines.push("Pass each step's result on to the steps that depend on it.");
  return [...lines, ...closingInstructions(input.steps)];
}

function stepLines(settings: Settings, batchOf: Map<string, Batch>, step: PlanStep): string[] {
  const lines = commonStepLines(step);
  const batch = batchOf.get(step.id);
  const tools = settings.toolsPerStep[step.id] ?? [];
  if (settings.mode === 'sub_agent') {
    const who = delegateOf(settings, step) === 'sub_agent' ? 'sub-agent' : 'you';
    const type = who === 'sub-agent' && step.agent !== undefined ? `, of type ${code(step.agent)} if you have one` : '';
    lines.push(`- run by: ${who}${type}, batch ${batch?.batch ?? '?'}`);
  }
  lines.push(`- tools: ${tools.length > 0 ? codeList(tools) : 'none listed'}`);
  return lines;
}

function groupLines(settings: Settings, batches: readonly Batch[], index: number): string[] {
  if (settings.mode === 'direct') return [];
  return batches
    .filter((b) => b.parallelGroup === index + 1)
    .map((b) =>
      b.delegate === 'sub_agent'
        ? `- Batch ${b.batch}: ${b.steps.length === 1 ? 'one sub-agent' : `${b.steps.length} sub-agents at once`} for ${codeList(b.steps)}`
        : `- Batch ${b.batch}: you run ${codeList(b.steps)} yourself`,
    );
}

function lead(settings: Settings): string {
  if (settings.mode === 'direct') return 'you run every step yourself, in dependency order.';
  const who = settings.spawnAgentsPerStep ? 'every step' : 'each agent step';
  const limit = settings.maxParallelAgents !== undefined ? `, at most ${settings.maxParallelAgents} at a time` : '';
  return `you orchestrate and delegate ${who} to its own sub-agent${limit}.`;
}

function renderPlan(input: PlanInput): RenderedPlan {
  const settings = settingsOf(input.workflow.manifest);
  const batches = batchesOf(settings, input);
  const batchOf = new Map<string, Batch>();
  for (const b of batches) for (const id of b.steps) batchOf.set(id, b);
  const instructions = instructionsOf(settings, input, batches);
  const text = renderDocument(input, {
    lead: lead(settings),
    instructions,
    stepLines: (step) => stepLines(settings, batchOf, step),
    groupLines: (index) => groupLines(settings, batches, index),
  });
  const structured: Record<string, unknown> = {
    ...baseStructured(input.base),
    steps: input.steps.map((step) => ({
      ...baseStepStructured(step),
      delegate: delegateOf(settings, step),
      batch: batchOf.get(step.id)?.batch ?? 0,
      tools: [...(settings.toolsPerStep[step.id] ?? [])],
    })),
    spawnAgentsPerStep: settings.spawnAgentsPerStep,
    ...(settings.maxParallelAgents !== undefined ? { maxParallelAgents: settings.maxParallelAgents } : {}),
    batches,
    instructions,
  };
  return { text, structured };
}

const DELEGATES = ['sub_agent', 'main_agent'] as const;

function outputSchema(mode: string): Schema {
  const step = stepSchema({
    delegate: oneOf(DELEGATES),
    batch: int('The batch (1-based) this step runs in.'),
    tools: arr(str(), 'Tools the step (its sub-agent) may use; empty when the manifest lists none.'),
  });
  const batch = obj({ batch: int(), parallelGroup: int(), delegate: oneOf(DELEGATES), steps: arr(str()) });
  return planSchema(
    'adapter_one',
    mode,
    step,
    {
      spawnAgentsPerStep: bool(),
      maxParallelAgents: int('Most sub-agents running at once; absent when unlimited.'),
      batches: arr(batch, 'What runs at the same time, in order.'),
    },
    ['spawnAgentsPerStep', 'batches'],
  );
}

export const adapterOne: AdapterRenderer = {
  adapter: 'adapter_one',
  modeOf: (manifest) => settingsOf(manifest).mode,
  hasStepTools: () => false,
  summary: (_mode, manifest) => lead(settingsOf(manifest)),
  outputSchema,
  renderPlan,
};
